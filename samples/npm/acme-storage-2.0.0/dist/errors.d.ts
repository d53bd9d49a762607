export declare class StorageError extends Error {
    readonly status: number;
}
