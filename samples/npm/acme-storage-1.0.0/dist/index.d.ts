export { StorageClient, ClientOptions } from './client';
export * from './errors';
/** Uploads a file in one request. */
export declare function upload(client: StorageClient, key: string, body: Uint8Array, contentType?: string): Promise<void>;
import { StorageClient } from './client';
