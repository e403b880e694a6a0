// What makes a domain name untestable before anything is asked: the reference (9.0.1) refuses such a
// name as a usage error instead of running a test case on it (4.6's Basic00 did that).
const maxLabelLength = 63;
// Without the final dot.
const maxNameLength = 253;

export class DomainNameError extends Error {
  override name = 'DomainNameError';
}

/** Why `domain` (A-label form) cannot be tested, in words; undefined when it can. */
export function domainNameFault(domain: string): string | undefined {
  if (domain === '.') return undefined;
  const name = domain.endsWith('.') ? domain.slice(0, -1) : domain;
  if (name === '') return 'the name is empty';
  const labels = name.split('.');
  if (labels.some((label) => label === '')) return 'the name has an empty label (two dots in a row, or a dot at the start)';
  const long = labels.find((label) => label.length > maxLabelLength);
  if (long !== undefined) return `the label ${long} is ${long.length} characters long; at most ${maxLabelLength} are allowed`;
  if (name.length > maxNameLength) return `the name is ${name.length} characters long; at most ${maxNameLength} are allowed`;
  return undefined;
}
