import type { main } from '../src/cli/main.ts';

/** The bundle's entry in `dir` when it is fresh, else undefined. */
export function freshBundle(dir: string): string | undefined;

/** Runs the bundle (CommonJS) with its code cache when it has a usable one. */
export function loadBundle(path: string): {
  main: typeof main;
  /** After a zone test: keeps what it compiled, unless a usable cache is there already. */
  keepCompiledCode(): void;
};
