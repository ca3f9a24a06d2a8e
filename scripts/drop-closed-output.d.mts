export declare function dropOutputWithoutReader(): void;
