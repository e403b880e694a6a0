// The one place that turns U-labels into A-labels, so the IDNA implementation can be swapped.
import { domainToASCII } from 'node:url';

export class IdnaFault extends Error {}

/** UTS 46 / IDNA 2008 conversion of a whole name; throws IdnaFault naming why it failed. */
export function toAsciiName(name: string): string {
  const ascii = domainToASCII(name);
  if (ascii === '') throw new IdnaFault('a label breaks the IDNA rules');
  return ascii;
}
