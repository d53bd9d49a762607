export interface ClientOptions {
    region: string;
    retries?: number;
}
/** A client for one storage account. */
export declare class StorageClient {
    constructor(endpoint: string, options?: ClientOptions);
    /** Reads an object. */
    get(key: string): Promise<Uint8Array>;
    /**
     * Writes an object.
     * @deprecated use upload() instead
     */
    put(key: string, body: Uint8Array): Promise<void>;
    list(prefix?: string, ...fields: string[]): Promise<string[]>;
    private sign;
}
