// Zone11's reading of SPF policies (RFC 7208): which TXT strings are SPF version 1 policies, and
// whether one parses. The syntax follows RFC 7208 section 12 as the reference engine's SPF library
// applies it: terms apart by spaces only, the eight mechanisms and the redirect and exp modifiers
// known, unknown modifiers allowed, each global modifier at most once.

const alpha = String.raw`\p{Alphabetic}`;
const alnum = String.raw`[\p{Alphabetic}\p{Nd}]`;
const name = String.raw`${alpha}[\p{Alphabetic}\p{Nd}\-_.]*`;
const macroExpand = String.raw`%(?:\{${alpha}\d*r?[.\-+,/_=]*\}|[%_-])`;
const macroString = String.raw`(?:${macroExpand}|[!-$&-~])*`;
const toplabel = String.raw`${alnum}+-[\p{Alphabetic}\p{Nd}-]*${alnum}|${alnum}*${alpha}${alnum}*`;
const domainSpec = String.raw`${macroString}(?:\.(?:${toplabel})\.?|${macroExpand})`;
const qnum = String.raw`25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d`;
const ipv4 = String.raw`(?:${qnum})(?:\.(?:${qnum})){3}`;
const hex = '[0-9a-fA-F]{1,4}';
const tail = `(?:${hex}:${hex}|${ipv4})`;
const ipv6 = [
  `(?:${hex}:){6}${tail}`,
  `(?:${hex}:){1}:(?:${hex}:){4}${tail}`,
  `(?:${hex}:){1,2}:(?:${hex}:){3}${tail}`,
  `(?:${hex}:){1,3}:(?:${hex}:){2}${tail}`,
  `(?:${hex}:){1,4}:(?:${hex}:){1}${tail}`,
  `(?:${hex}:){1,5}:${tail}`,
  `(?:${hex}:){1,6}:${hex}`,
  `(?:${hex}:){1,7}:`,
  `::(?:${hex}:){0,6}${hex}`,
  `::(?:${hex}:){0,5}${tail}`,
  '::',
].join('|');

const re = (source: string): RegExp => new RegExp(source, 'iu');
const versionTag = re(String.raw`^v=spf1(?:\x20+|$)`);
const mechanismTerm = re(String.raw`^([+\-~?]?(${name})(?=[:/\x20]|$)[^\x20]*)(?:\x20+|$)`);
const modifierTerm = re(String.raw`^((${name})=[^\x20]*)(?:\x20+|$)`);
const domainSpecAtStart = re(`^(?:${domainSpec})`);
const ipv4AtStart = re(`^(?:${ipv4})`);
const ipv6AtStart = re(`^(?:${ipv6})(?=/|$)`);
const prefixAtStart = /^\/(\d+)/;
const wholeMacroString = re(`^${macroString}$`);

/** What follows a mechanism's name, by mechanism: whether a domain-spec, address or prefixes may or must come. */
type Params = 'none' | 'domain-and-prefixes' | 'optional-domain' | 'required-domain' | 'ipv4-network' | 'ipv6-network';
const mechanisms = new Map<string, Params>([
  ['all', 'none'],
  ['ip4', 'ipv4-network'],
  ['ip6', 'ipv6-network'],
  ['a', 'domain-and-prefixes'],
  ['mx', 'domain-and-prefixes'],
  ['ptr', 'optional-domain'],
  ['exists', 'required-domain'],
  ['include', 'required-domain'],
]);
const globalModifiers = new Set(['redirect', 'exp']);

class SpfSyntaxError extends Error {}

/** A cursor over one term's text. */
class Term {
  rest: string;
  constructor(text: string) {
    this.rest = text;
  }

  take(pattern: RegExp): RegExpExecArray | undefined {
    const match = pattern.exec(this.rest);
    if (!match) return undefined;
    this.rest = this.rest.slice(match[0].length);
    return match;
  }

  domainSpec(required: boolean): void {
    if (!this.take(domainSpecAtStart) && required) throw new SpfSyntaxError('domain-spec expected');
  }

  /** A prefix length up to `max`, without leading zeros; a '/' followed by no digits is left for the end check. */
  prefix(max: number, required: boolean): void {
    const match = this.take(prefixAtStart);
    if (!match) {
      if (required) throw new SpfSyntaxError('prefix length expected');
      return;
    }
    const digits = match[1];
    if (Number(digits) > max || /^0./.test(digits)) throw new SpfSyntaxError('prefix length out of range');
  }

  end(): void {
    if (this.rest !== '') throw new SpfSyntaxError('junk in term');
  }
}

function parseMechanism(text: string, mechanism: string, params: Params): void {
  const term = new Term(text);
  term.take(/^[+\-~?]/);
  // The name, and a ':' when something follows it.
  term.take(re(`^${mechanism}(?::(?=.))?`));
  switch (params) {
    case 'none':
      break;
    case 'ipv4-network':
      if (!term.take(ipv4AtStart)) throw new SpfSyntaxError('IPv4 address expected');
      term.prefix(32, false);
      break;
    case 'ipv6-network':
      if (!term.take(ipv6AtStart)) throw new SpfSyntaxError('IPv6 address expected');
      term.prefix(128, false);
      break;
    case 'domain-and-prefixes':
      term.domainSpec(false);
      // ip4-cidr-length, then optionally '/' and ip6-cidr-length ("//64" gives only the latter).
      term.prefix(32, false);
      if (term.take(/^\//)) term.prefix(128, true);
      break;
    case 'optional-domain':
      term.domainSpec(false);
      break;
    case 'required-domain':
      term.domainSpec(true);
      break;
  }
  term.end();
}

function parseModifier(text: string, modifier: string, seen: Set<string>): void {
  const term = new Term(text.slice(modifier.length + 1));
  if (globalModifiers.has(modifier)) {
    if (seen.has(modifier)) throw new SpfSyntaxError(`duplicate ${modifier}`);
    seen.add(modifier);
    term.domainSpec(true);
  } else if (!term.take(wholeMacroString)) {
    throw new SpfSyntaxError('invalid macro string');
  }
  term.end();
}

/** Whether an SPF version 1 policy parses. */
export function spfSyntaxOk(policy: string): boolean {
  const record = new Term(policy);
  if (!record.take(versionTag)) return false;
  const seen = new Set<string>();
  try {
    while (record.rest.length > 0) {
      const mechanism = record.take(mechanismTerm);
      if (mechanism) {
        const key = mechanism[2].toLowerCase();
        const params = mechanisms.get(key);
        if (params === undefined) return false;
        parseMechanism(mechanism[1], key, params);
        continue;
      }
      const modifier = record.take(modifierTerm);
      if (!modifier) return false;
      parseModifier(modifier[1], modifier[2].toLowerCase(), seen);
    }
  } catch (error) {
    if (error instanceof SpfSyntaxError) return false;
    throw error;
  }
  return true;
}

/** TXT data as one string: its character-strings joined, each byte one character (Latin-1), in lower case. */
export function txtText(strings: readonly Uint8Array[]): string {
  return Buffer.concat(strings).toString('latin1').toLowerCase();
}

/** Whether TXT data (as txtText gives it) is an SPF version 1 policy: "v=spf1" alone or followed by white space. */
export function isSpfPolicy(text: string): boolean {
  // Perl's \s on Latin-1 text: \t \n \v \f \r, space, NEL and no-break space.
  return /^v=spf1(?:\n?$|[\t\n\v\f\r \u0085\u00a0])/.test(text);
}

/** A null policy: nothing but "-all" (a domain that sends no mail). */
export function isNullSpfPolicy(text: string): boolean {
  return /^v=spf1[ \t]+-all[ \t]*$/i.test(text);
}
