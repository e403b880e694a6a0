// The Syntax module's rules for names, on names as the reference sees them: presentation text split at
// dots. Host names may hold letters, digits and hyphens only (RFC 952, RFC 1123 §2.1); a hyphen may not
// start or end a label; '--' in positions 3 and 4 is reserved for IDNA prefixes (RFC 5891 §4.2.3.1),
// of which only 'xn--' is in use.
import type { Name } from '@app/dns';
import type { Message } from '../finding.ts';

/** Whose name is checked: the tag prefix of Syntax04 (NS), Syntax07 (SOA MNAME) and Syntax08 (MX). */
export type HostRole = 'NAMESERVER' | 'MNAME' | 'MX';

/** Labels of a name given as text, final dot or not; the root ('.') has none. */
export function labelsOf(name: string): string[] {
  const labels = name.split('.');
  while (labels.length > 0 && labels.at(-1) === '') labels.pop();
  return labels;
}

export function hasOnlyAllowedChars(labels: readonly string[]): boolean {
  return labels.every((label) => /^[-A-Za-z0-9]+$/.test(label));
}

export function startsWithHyphen(label: string): boolean {
  return label.startsWith('-');
}

export function endsWithHyphen(label: string): boolean {
  return label.endsWith('-');
}

/** '--' in positions 3 and 4 of a label that is not an IDNA A-label ('xn--', any case). */
export function hasDiscouragedDoubleDash(label: string): boolean {
  return /^..--/s.test(label) && !/^xn/i.test(label);
}

/**
 * The text the reference shows for a name from a record: zone-file escapes only for '.', ';', '(',
 * ')' and '\', \DDD for bytes that are not printable ASCII; no final dot.
 */
export function nameText(name: Name): string {
  if (name.isRoot) return '.';
  return name.labels
    .map((label) =>
      [...label]
        .map((byte) => {
          if ([0x2e, 0x3b, 0x28, 0x29, 0x5c].includes(byte)) return `\\${String.fromCharCode(byte)}`;
          return byte > 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, '0')}`;
        })
        .join(''),
    )
    .join('.');
}

/** Syntax04/07/08: one host name's characters, reserved '--' labels and numeric TLD, or that it is fine. */
export function hostNameMessages(role: HostRole, name: string): Message[] {
  const labels = labelsOf(name);
  const messages: Message[] = [];
  if (!hasOnlyAllowedChars(labels)) messages.push({ tag: `${role}_NON_ALLOWED_CHARS`, args: { domain: name } });
  if (name !== '.') {
    for (const label of labels) {
      if (hasDiscouragedDoubleDash(label)) messages.push({ tag: `${role}_DISCOURAGED_DOUBLE_DASH`, args: { label, domain: name } });
    }
    const tld = labels.at(-1) ?? '';
    if (/^\d+$/.test(tld)) messages.push({ tag: `${role}_NUMERIC_TLD`, args: { domain: name, tld } });
  }
  return messages.length > 0 ? messages : [{ tag: `${role}_SYNTAX_OK`, args: { domain: name } }];
}
