// IDN to A-labels: UTS 46 mapping (non-transitional) through `tr46`, then the IDNA 2008 code point
// rules of RFC 5892 on every U-label, which UTS 46 alone does not apply (it lets symbols such as
// U+2603 through). Node's url.domainToASCII was not chosen: it follows the WHATWG profile, which
// turns off the hyphen and STD3 checks and so accepts U-labels such as "-ü" or "a_ü".
import { createRequire } from 'node:module';
import type tr46Module from 'tr46';

// tr46 holds Unicode's whole mapping table (about 20 ms to load); ASCII names, most of them, never need it.
let loaded: typeof tr46Module | undefined;
const uts46 = (): typeof tr46Module => (loaded ??= createRequire(import.meta.url)('tr46') as typeof tr46Module);

export type IdnaFault = 'invalid-punycode' | 'disallowed-character' | 'leading-combining-mark' | 'hyphen' | 'joiner' | 'bidi' | 'context';

export class IdnaError extends Error {
  override name = 'IdnaError';
  readonly fault: IdnaFault;
  readonly label: string;
  constructor(fault: IdnaFault, label: string, message: string) {
    super(message);
    this.fault = fault;
    this.label = label;
  }
}

const strict = {
  checkHyphens: true,
  checkBidi: true,
  checkJoiners: true,
  useSTD3ASCIIRules: true,
  transitionalProcessing: false,
} as const;

const ideographicDots = /[\u3002\uff0e\uff61]/g;
const nonAscii = /[^\p{ASCII}]/u;

/**
 * Converts a domain name to A-labels, lower case. ASCII labels other than A-labels pass through
 * unchanged apart from case (DNS names may hold any byte); U-labels and A-labels must be valid
 * IDNA 2008. Structure (empty labels, lengths) is left to the caller. Throws IdnaError.
 */
export function domainToAscii(text: string): string {
  const labels = text.replace(ideographicDots, '.').split('.');
  let hasIdn = false;
  const out = labels.map((label) => {
    const ascii = !nonAscii.test(label);
    if (ascii && !/^xn--/i.test(label)) return label.toLowerCase();
    hasIdn = true;
    return toALabel(label);
  });
  const result = out.join('.');
  // The Bidi rule (RFC 5893) looks at the whole name once any label is right-to-left.
  if (hasIdn && uts46().toASCII(result, { checkBidi: true }) === null) {
    throw new IdnaError('bidi', text, `"${text}" breaks the bidirectional text rules (RFC 5893)`);
  }
  return result;
}

function toALabel(label: string): string {
  const converted = uts46().toASCII(label, strict);
  if (converted === null) throw diagnose(label);
  const uLabel = uts46().toUnicode(converted).domain;
  checkCodePoints(uLabel, label);
  return converted;
}

// tr46 reports only failure; re-running with one check at a time tells which rule was broken.
function diagnose(label: string): IdnaError {
  if (uts46().toASCII(label, { transitionalProcessing: false }) === null) {
    const mapped = uts46().toUnicode(label).domain;
    // A label that stays encoded, or decodes to nothing beyond ASCII, is not an A-label.
    if (/^xn--/i.test(label) && (/^xn--/i.test(mapped) || !nonAscii.test(mapped))) {
      return new IdnaError('invalid-punycode', label, `"${label}" is not valid Punycode`);
    }
    if (/^\p{M}/u.test(mapped)) {
      return new IdnaError('leading-combining-mark', label, `"${label}" begins with a combining mark`);
    }
    return new IdnaError('disallowed-character', label, `"${label}" contains a character not allowed in IDNs`);
  }
  if (uts46().toASCII(label, { useSTD3ASCIIRules: true }) === null) {
    return new IdnaError('disallowed-character', label, `"${label}" contains an ASCII character not allowed in host names`);
  }
  if (uts46().toASCII(label, { checkHyphens: true }) === null) {
    return new IdnaError('hyphen', label, `"${label}" has a hyphen at the start, the end, or in positions 3 and 4`);
  }
  if (uts46().toASCII(label, { checkJoiners: true }) === null) {
    return new IdnaError('joiner', label, `"${label}" uses a zero-width joiner or non-joiner out of context`);
  }
  return new IdnaError('bidi', label, `"${label}" breaks the bidirectional text rules (RFC 5893)`);
}

type Status = 'PVALID' | 'CONTEXTJ' | 'CONTEXTO' | 'DISALLOWED';

const exceptions = new Map<number, Status>([
  [0x00df, 'PVALID'],
  [0x03c2, 'PVALID'],
  [0x06fd, 'PVALID'],
  [0x06fe, 'PVALID'],
  [0x0f0b, 'PVALID'],
  [0x3007, 'PVALID'],
  [0x00b7, 'CONTEXTO'],
  [0x0375, 'CONTEXTO'],
  [0x05f3, 'CONTEXTO'],
  [0x05f4, 'CONTEXTO'],
  [0x30fb, 'CONTEXTO'],
  [0x0640, 'DISALLOWED'],
  [0x07fa, 'DISALLOWED'],
  [0x302e, 'DISALLOWED'],
  [0x302f, 'DISALLOWED'],
  [0x3031, 'DISALLOWED'],
  [0x3032, 'DISALLOWED'],
  [0x3033, 'DISALLOWED'],
  [0x3034, 'DISALLOWED'],
  [0x3035, 'DISALLOWED'],
  [0x303b, 'DISALLOWED'],
]);
for (let cp = 0x0660; cp <= 0x0669; cp++) exceptions.set(cp, 'CONTEXTO');
for (let cp = 0x06f0; cp <= 0x06f9; cp++) exceptions.set(cp, 'CONTEXTO');

const ignorableProperty = /[\p{Default_Ignorable_Code_Point}\p{White_Space}\p{Noncharacter_Code_Point}]/u;
const letterDigit = /[\p{Ll}\p{Lu}\p{Lo}\p{Nd}\p{Lm}\p{Mn}\p{Mc}]/u;
const unassigned = /\p{Cn}/u;

/** The derived property of RFC 5892 §3. */
function derivedProperty(cp: number): Status {
  const known = exceptions.get(cp);
  if (known) return known;
  const ch = String.fromCodePoint(cp);
  if (unassigned.test(ch)) return 'DISALLOWED';
  if ((cp >= 0x61 && cp <= 0x7a) || (cp >= 0x30 && cp <= 0x39) || cp === 0x2d) return 'PVALID';
  if (cp === 0x200c || cp === 0x200d) return 'CONTEXTJ';
  if (ch.normalize('NFKC').toLowerCase().normalize('NFKC') !== ch) return 'DISALLOWED';
  if (ignorableProperty.test(ch)) return 'DISALLOWED';
  if ((cp >= 0x20d0 && cp <= 0x20ff) || (cp >= 0x1d100 && cp <= 0x1d24f)) return 'DISALLOWED';
  if ((cp >= 0x1100 && cp <= 0x11ff) || (cp >= 0xa960 && cp <= 0xa97f) || (cp >= 0xd7b0 && cp <= 0xd7ff)) return 'DISALLOWED';
  return letterDigit.test(ch) ? 'PVALID' : 'DISALLOWED';
}

function checkCodePoints(uLabel: string, original: string): void {
  const cps = Array.from(uLabel, (c) => c.codePointAt(0)!);
  cps.forEach((cp, i) => {
    const status = derivedProperty(cp);
    const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    if (status === 'DISALLOWED') {
      throw new IdnaError('disallowed-character', original, `"${original}" contains ${hex}, which IDNA 2008 does not allow`);
    }
    if (status === 'CONTEXTO' && !contextAllows(cps, i)) {
      throw new IdnaError('context', original, `"${original}" uses ${hex} outside the context RFC 5892 allows`);
    }
  });
}

const greek = /\p{Script=Greek}/u;
const hebrew = /\p{Script=Hebrew}/u;
const japanese = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u;

// RFC 5892 Appendix A, the CONTEXTO rules.
function contextAllows(cps: number[], i: number): boolean {
  const cp = cps[i];
  const at = (j: number) => (cps[j] === undefined ? '' : String.fromCodePoint(cps[j]));
  if (cp === 0x00b7) return cps[i - 1] === 0x6c && cps[i + 1] === 0x6c;
  if (cp === 0x0375) return greek.test(at(i + 1));
  if (cp === 0x05f3 || cp === 0x05f4) return hebrew.test(at(i - 1));
  if (cp === 0x30fb) return cps.some((c, j) => j !== i && c !== 0x30fb && japanese.test(String.fromCodePoint(c)));
  if (cp >= 0x0660 && cp <= 0x0669) return !cps.some((c) => c >= 0x06f0 && c <= 0x06f9);
  if (cp >= 0x06f0 && cp <= 0x06f9) return !cps.some((c) => c >= 0x0660 && c <= 0x0669);
  return false;
}
