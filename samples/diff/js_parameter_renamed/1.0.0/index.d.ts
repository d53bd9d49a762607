/** Copy a file. */
export declare function copy(src: string, dest: string): void;
