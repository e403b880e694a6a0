/** A domain as a command line or an API takes it: without its final dot, except the root, which is `.`. */
export const commandLineDomain = (domain: string): string => (domain === '.' ? domain : domain.replace(/\.$/, ''));
