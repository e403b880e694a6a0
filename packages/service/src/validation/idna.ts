// The one place that turns U-labels into A-labels: @app/dns (UTS 46 with the IDNA 2008 rules).
import { domainToAscii, IdnaError } from '@app/dns';

export class IdnaFault extends Error {}

/** Converts a whole name; throws IdnaFault naming why it failed. */
export function toAsciiName(name: string): string {
  try {
    return domainToAscii(name);
  } catch (error) {
    if (error instanceof IdnaError) throw new IdnaFault(error.message);
    throw error;
  }
}
