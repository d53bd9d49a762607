"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.StorageClient = void 0;
class StorageClient {
    constructor(options) { this.options = options; }
    async get(key, range) { return new Uint8Array(); }
    async list(prefix, ...fields) { return []; }
    async delete(key) { }
}
exports.StorageClient = StorageClient;
