/** Copy a file. */
export declare function copy(source: string, dest: string): void;
