export interface ClientOptions {
    region: string;
    retries?: number;
    timeoutMs?: number;
}
/** A client for one storage account. */
export declare class StorageClient {
    constructor(options: ClientOptions & { endpoint: string });
    /** Reads an object, or a byte range of it. */
    get(key: string, range?: [number, number]): Promise<Uint8Array>;
    list(prefix?: string, ...fields: string[]): Promise<string[]>;
    /** Deletes an object. @since 2.0.0 */
    delete(key: string): Promise<void>;
}
