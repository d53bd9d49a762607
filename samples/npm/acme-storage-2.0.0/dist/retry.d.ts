/** How failed requests are retried. */
export interface RetryPolicy {
    attempts: number;
    backoffMs?: number;
}
/** Runs `fn`, retrying failures with exponential backoff. */
export declare function withRetry<T>(fn: () => Promise<T>, policy?: RetryPolicy): Promise<T>;
