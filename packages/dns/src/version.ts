import manifest from '../package.json' with { type: 'json' };

export const dnsVersion: string = manifest.version;
