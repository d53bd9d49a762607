"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.StorageError = void 0;
class StorageError extends Error {
}
exports.StorageError = StorageError;
