import { domainToAscii, IdnaError } from '@app/dns';
import { invalid, text, type Rule } from './param-rules.ts';

// Ideographic and fullwidth full stops count as dots, as UTS 46 says.
const unicodeDots = /[\u3002\uFF0E\uFF61]/g;
const nonAscii = /[\u0080-\uffff]/;
// A-labels are checked too: "xn--" must be valid Punycode of a valid U-label.

/**
 * A domain name as the spec defines it: `.` or up to 254 characters whose labels are at most 63
 * characters after IDNA conversion. Any characters are allowed. The result is the A-label form in
 * lower case without a final dot (`.` for the root).
 */
export const domainName: Rule<string> = (value, path, issues) => {
  const given = text(value, path, issues);
  if (given === invalid) return invalid;
  const fault = (
    id: 'domain_empty' | 'domain_single' | 'domain_leading_dot' | 'domain_repeated_dots' | 'domain_too_long',
  ): typeof invalid => {
    issues.push({ path, id });
    return invalid;
  };
  let name = given.replace(unicodeDots, '.');
  if (name === '') return fault('domain_empty');
  if (name === '.') return '.';
  if (name.length === 1) return fault('domain_single');
  if (name.startsWith('.')) return fault('domain_leading_dot');
  if (name.includes('..')) return fault('domain_repeated_dots');
  if (name.length > 254) return fault('domain_too_long');
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (nonAscii.test(name) || /(?:^|\.)xn--/i.test(name)) {
    try {
      name = domainToAscii(name);
    } catch (error) {
      if (!(error instanceof IdnaError)) throw error;
      issues.push({ path, id: 'domain_idna', args: { reason: error.message } });
      return invalid;
    }
  }
  const long = name.split('.').find((label) => label.length > 63);
  if (long !== undefined) {
    issues.push({ path, id: 'domain_label_long', args: { label: long } });
    return invalid;
  }
  if (name.length > 253) return fault('domain_too_long');
  return name.toLowerCase();
};
