// RFC 1035 §5 master files: directives, owner/TTL/class defaults, and record lines.
import { classFromString, RRClass, RRType, typeFromString } from '../constants.ts';
import type { Name } from '../name.ts';
import { DnsEncodeError } from '../wire/errors.ts';
import { encodeRdataBytes, type ResourceRecord } from '../wire/message.ts';
import { ZoneFileError } from './errors.ts';
import { Fields, parseDuration, parseName } from './presentation.ts';
import { parseRdata } from './rdata-text.ts';
import { entries, type Token } from './tokenizer.ts';

export interface ZoneFileOptions {
  /** The origin before any $ORIGIN; needed for relative names and "@". */
  origin?: Name | string;
  /** TTL for records without one when there is no $TTL. */
  defaultTtl?: number;
}

export function parseZoneFile(text: string, options: ZoneFileOptions = {}): ResourceRecord[] {
  let origin = typeof options.origin === 'string' ? parseName(options.origin, undefined, 0) : options.origin;
  let defaultTtl = options.defaultTtl;
  let lastOwner: Name | undefined;
  let lastClass: number = RRClass.IN;
  let lastTtl: number | undefined;
  const records: ResourceRecord[] = [];

  for (const entry of entries(text)) {
    const { line, tokens } = entry;
    const first = tokens[0];
    if (!entry.indented && !first.quoted && first.text.startsWith('$')) {
      const directive = first.text.toUpperCase();
      const arg = tokens[1];
      if (directive === '$ORIGIN') {
        if (!arg) throw new ZoneFileError(line, '$ORIGIN needs a name');
        origin = parseName(arg.text, origin, line);
      } else if (directive === '$TTL') {
        const ttl = arg && parseDuration(arg.text);
        if (ttl === undefined) throw new ZoneFileError(line, '$TTL needs a TTL');
        defaultTtl = ttl;
      } else {
        throw new ZoneFileError(line, `${first.text} is not supported`);
      }
      continue;
    }

    let i = 0;
    let owner: Name;
    if (entry.indented) {
      if (!lastOwner) throw new ZoneFileError(line, 'a record without an owner name, and no earlier owner');
      owner = lastOwner;
    } else {
      owner = parseName(tokens[i++].text, origin, line);
    }
    let ttl: number | undefined;
    let cls: number | undefined;
    let type: number | undefined;
    // TTL and class may come in either order before the type (RFC 1035 §5.1).
    for (; i < tokens.length && type === undefined; i++) {
      const t: Token = tokens[i];
      const asTtl = ttl === undefined ? parseDuration(t.text) : undefined;
      if (asTtl !== undefined) ttl = asTtl;
      else if (cls === undefined && classFromString(t.text) !== undefined) cls = classFromString(t.text);
      else if (typeFromString(t.text) !== undefined) type = typeFromString(t.text);
      else throw new ZoneFileError(line, `expected a TTL, class or type, found "${t.text}"`);
    }
    if (type === undefined) throw new ZoneFileError(line, 'the record has no type');
    if (type === RRType.OPT) throw new ZoneFileError(line, 'OPT records do not belong in zone files');
    cls ??= lastClass;
    const rdata = parseRdata(new Fields(tokens.slice(i), line, origin), type);
    if (ttl === undefined) {
      ttl = defaultTtl ?? lastTtl;
      // Without $TTL, BIND falls back to the SOA minimum (RFC 2308 §4 predecessor behaviour).
      if (ttl === undefined && type === RRType.SOA && !(rdata instanceof Uint8Array) && 'minimum' in rdata) ttl = rdata.minimum;
      if (ttl === undefined) throw new ZoneFileError(line, 'no TTL given and no $TTL or default TTL');
    }
    let raw: Uint8Array;
    try {
      raw = encodeRdataBytes(type, rdata);
    } catch (error) {
      if (error instanceof DnsEncodeError) throw new ZoneFileError(line, error.message);
      throw error;
    }
    records.push({ name: owner, type, class: cls, ttl, rdata, raw });
    lastOwner = owner;
    lastClass = cls;
    lastTtl = ttl;
  }
  return records;
}
