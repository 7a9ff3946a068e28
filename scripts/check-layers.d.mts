export declare const LAYERS: string[];
export declare function checkLayers(srcRoot: string): string[];
