"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.StorageClient = void 0;
class StorageClient {
    constructor(endpoint, options) {
        this.endpoint = endpoint;
    }
    async get(key) { return new Uint8Array(); }
    async put(key, body) { }
    async list(prefix, ...fields) { return []; }
    sign() { }
}
exports.StorageClient = StorageClient;
