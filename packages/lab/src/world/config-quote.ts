// A string as the name servers' configuration files quote it (named.conf, knot.conf, nsd.conf alike).
export const quote = (text: string): string => `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
