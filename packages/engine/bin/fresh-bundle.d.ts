/** The bundle's entry in `dir` when it is fresh, else undefined. */
export function freshBundle(dir: string): string | undefined;
