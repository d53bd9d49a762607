"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.upload = exports.StorageClient = void 0;
const tslib_1 = require("tslib");
var client_1 = require("./client");
Object.defineProperty(exports, "StorageClient", { enumerable: true, get: function () { return client_1.StorageClient; } });
tslib_1.__exportStar(require("./errors"), exports);
async function upload(client, key, body, options = {}) { }
exports.upload = upload;
