export { StorageClient, ClientOptions } from './client';
export * from './errors';
import { StorageClient } from './client';
import { RetryPolicy } from './retry';
/** Uploads a file, in parts when it is large. */
export declare function upload(client: StorageClient, key: string, body: Uint8Array, options?: {
    contentType?: string;
    retry?: RetryPolicy;
}): Promise<void>;
