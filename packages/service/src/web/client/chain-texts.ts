// What a Chain view node says, in the engine's words (chain-words.ts, served by the import map) so that the
// view and `dnscheck --chain-svg` name the same chain alike; only the words of a sentence are translated.
import { isRevoked, keyBits, keyRole, rootHeading } from '@app/engine/chain-words';
import { humanName, type ChainNode } from './chain-model.ts';
import type english from '../../shared/locales/en.json';

/** i18n.ts's `t`, named without importing i18n.ts: its Preact brings the DOM's types into the tests that import this. */
export type Translate = (key: keyof typeof english, args?: Record<string, string | number>) => string;

/** A key's part: KSK or ZSK as the engine says them, "not a zone key" and "revoked" in the reader's language. */
export function roleText(flags: number, t: Translate): string {
  const role = keyRole(flags);
  const text = role === 'not a zone key' ? t('chain_not_zone_key') : role;
  return isRevoked(flags) ? `${text}, ${t('chain_revoked')}` : text;
}

/** The key's size as its algorithm names it (P-256: 256 bits). */
export const keySizeText = (algorithm: number, keyLength: number, t: Translate): string =>
  t('chain_bits', { bits: keyBits(algorithm, keyLength) });

/** The node's two lines: what it is, and its status (a zone's heading is one line: label and detail). */
export function nodeTexts(node: ChainNode, t: Translate): { label: string; detail: string } {
  switch (node.kind) {
    case 'zone':
      return node.zone === '.'
        ? { label: rootHeading(t('chain_root')), detail: node.data.delegation?.status ?? '' }
        : { label: humanName(node.zone), detail: node.status };
    case 'dnskey':
      return {
        label: `DNSKEY ${node.key.id}`,
        detail: `${roleText(node.key.flags, t)}, ${keySizeText(node.key.algorithm, node.key.key_length, t)}`,
      };
    case 'ds':
      return { label: `DS ${node.ds.id}`, detail: node.status };
    case 'rrset':
      return { label: `${node.type} RRset`, detail: node.status };
    case 'no-ds':
      return { label: t('chain_no_ds', { zone: humanName(node.child) }), detail: node.status };
  }
}

/**
 * A DS digest as the rest of the report writes one (ds_suggestion, the DS form): upper-case hex. grok's JSON
 * keeps DNSViz's base64; what is not base64 shows as it came.
 */
export function digestHex(base64: string): string {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 !== 0) return base64;
  let hex = '';
  for (const c of atob(base64)) hex += c.charCodeAt(0).toString(16).padStart(2, '0');
  return hex.toUpperCase();
}
