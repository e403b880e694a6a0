import manifest from '../package.json' with { type: 'json' };

export const engineVersion: string = manifest.version;

/** The Zonemaster release whose test cases, tags, levels and arguments the engine follows. */
export const referenceVersion = { engine: '9.0.1', cli: '8.0.1' } as const;
