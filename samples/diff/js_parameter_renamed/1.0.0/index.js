"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.copy = copy;
/** Copy a file. */
function copy(src, dest) {}
