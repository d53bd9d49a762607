"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.withRetry = void 0;
async function withRetry(fn, policy = { attempts: 3 }) { return fn(); }
exports.withRetry = withRetry;
