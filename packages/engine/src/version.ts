import manifest from '../package.json' with { type: 'json' };

export const engineVersion: string = manifest.version;
