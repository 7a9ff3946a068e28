export declare const GUARDED: Record<string, string>;
export declare function checkBrowserEntry(entry?: string): Promise<string[]>;
