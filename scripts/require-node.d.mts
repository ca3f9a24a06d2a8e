export declare const requiredNodeMajor: number;
export declare function nodeRuntimeProblem(version?: string): string | null;
