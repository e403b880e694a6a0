// fast-check arbitraries for what an attacker sends: query strings, JSON bodies and forms built from names
// the server knows mixed with names found on Object.prototype, odd Unicode, control characters, numbers and
// dates past what columns hold, malformed JSON and percent-encoding, deep nesting and oversized bodies.
import fc from 'fast-check';

export const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'prototype',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupSetter__',
];

const CONTROL = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).concat('\u007f', '\u0085', '\u2028', '\u2029');

/** Texts that have broken parsers somewhere: each is tried as a value, a name, a path segment. */
export const HOSTILE_TEXTS = [
  '',
  ' ',
  ...PROTOTYPE_NAMES,
  '\u0000',
  'a\u0000b',
  '\r\nSet-Cookie: x=1',
  '\u202eevil',
  '\ufeff',
  '\ud800',
  '\udfff',
  'e\u0301\u0301\u0301',
  '𝕏𝕐',
  '１２３',
  "' OR 1=1 --",
  '"; DROP TABLE products; --',
  '%',
  '_',
  '!',
  '\\',
  '`',
  '${x}',
  '-9007199254740993',
  '9223372036854775807',
  '-9223372036854775809',
  '1e308',
  '-1e308',
  '1e999',
  '-0',
  'NaN',
  'Infinity',
  '0x10',
  '1_000',
  '2147483648',
  '4294967296',
  '2016-12-31T23:59:60Z',
  '+275760-09-13T00:00:00.000Z',
  '-000001-01-01T00:00:00Z',
  '0000-00-00',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59-05:00',
  '10000-01-01T00:00:00Z',
  '2020-02-30T00:00:00Z',
  '1970-01-01T00:00:00+24:00',
  'eq:',
  'like:%',
  'startwith:_',
  'gt:1e999',
  'eq:1+OR+',
  'OR+',
  '+AND+',
  'OR+eq:1+AND+OR+',
  'eq:1 AND 2 OR 3',
  'not:\u0000',
  'x'.repeat(300),
  'x'.repeat(70_000),
  'id,'.repeat(3000),
  ','.repeat(5000),
  '-'.repeat(100),
  'true',
  'false',
  'null',
  '[]',
  '{}',
];

const texts = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_TEXTS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...CONTROL, '\ud800', '\udc00', 'a', ','), maxLength: 20 }) },
  { weight: 1, arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()) },
  {
    weight: 1,
    arbitrary: fc.oneof(fc.integer(), fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), fc.double({ noNaN: true })).map(String),
  },
);

/** Bytes as %XX, except the unreserved characters; lone surrogates become U+FFFD as UTF-8 encoding does. */
export function percentEncoded(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

// Escapes no decoder should accept, and shapes other query parsers read as nested objects.
const RAW_QUERY_PARTS = [
  '%',
  '%zz',
  '%C0%80',
  '%ED%A0%80',
  '%FF%FE',
  '%00',
  '&&&',
  '=',
  '==',
  'a[b]=1',
  'sort[]=id',
  '__proto__[x]=1',
  'constructor[prototype][x]=1',
  'fields[0]=id',
  '+',
  '%2B%2B',
];

/** A query string (without `?`) using the route's own parameter names among hostile ones. */
export function queryArbitrary(knownNames: readonly string[]): fc.Arbitrary<string> {
  const names = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        'sort',
        'fields',
        'expand',
        'page',
        'count',
        'after',
        'ids',
        ...(knownNames.length === 0 ? ['id'] : knownNames),
      ),
    },
    { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
    { weight: 1, arbitrary: texts },
  );
  // sort/fields/expand lists: known names, inherited ones, minus signs, repeats.
  const list = fc
    .array(
      fc.oneof(fc.constantFrom(...knownNames, ...PROTOTYPE_NAMES), texts).chain((n) => fc.constantFrom(n, `-${n}`)),
      { maxLength: 6 },
    )
    .map((items) => items.join(','));
  const value = fc.oneof(texts, list);
  const pair = fc.oneof(
    { weight: 8, arbitrary: fc.tuple(names, value).map(([name, v]) => `${percentEncoded(name)}=${percentEncoded(v)}`) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_QUERY_PARTS) },
  );
  return fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.join('&'));
}

/** A JSON number written as text, so it can be one JavaScript cannot hold (9223372036854775807, 1e999). */
class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}
/** An object as key/value pairs, so keys may repeat and be `__proto__`. */
class JsonPairs {
  readonly pairs: readonly (readonly [string, JsonTree])[];
  constructor(pairs: readonly (readonly [string, JsonTree])[]) {
    this.pairs = pairs;
  }
}
type JsonTree = null | boolean | string | RawJson | JsonPairs | JsonTree[];

export function jsonText(tree: JsonTree): string {
  if (tree instanceof RawJson) return tree.text;
  if (tree instanceof JsonPairs) return `{${tree.pairs.map(([key, value]) => `${JSON.stringify(key)}:${jsonText(value)}`).join(',')}}`;
  if (Array.isArray(tree)) return `[${tree.map(jsonText).join(',')}]`;
  return JSON.stringify(tree);
}

const NUMBER_TEXTS = [
  '-9007199254740993',
  '9007199254740993',
  '9223372036854775807',
  '-9223372036854775808',
  '1e308',
  '-1e308',
  '1e999',
  '-0',
  '5e-324',
  '2147483647',
  '2147483648',
  '-2147483649',
  '4294967296',
  '0.1e1',
  '1.00000000000000000001',
  '99999999999999999999999999999',
  '9999999999.99995',
  '0.00001',
];
const numbers = fc
  .oneof(
    fc.constantFrom(...NUMBER_TEXTS),
    fc.integer().map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    fc.integer({ min: 0, max: 5 }).map(String),
  )
  .map((text) => new RawJson(text));

/**
 * A JSON body (as text) for a route whose records have `fieldNames`: mostly objects of those fields with wrong
 * types and extreme values, and sometimes malformed, truncated, deeply nested or larger than the server accepts.
 * `idValues` are what an `id` key gets, so a suite knows which records a body may address.
 */
export function jsonBodyArbitrary(fieldNames: readonly string[], idValues: readonly string[]): fc.Arbitrary<string> {
  const key = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...(fieldNames.length === 0 ? ['name'] : fieldNames)) },
    { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
    { weight: 1, arbitrary: texts },
  );
  const { tree } = fc.letrec<{ tree: JsonTree; leaf: JsonTree; object: JsonTree }>((tie) => ({
    leaf: fc.oneof(fc.constant(null), fc.boolean(), texts, numbers),
    tree: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('leaf'), fc.array(tie('tree'), { maxLength: 4 }), tie('object')),
    object: fc
      .array(
        key.chain((name) =>
          name === 'id'
            ? fc.constantFrom(...idValues).map((id): [string, JsonTree] => [name, new RawJson(id)])
            : tie('tree').map((value): [string, JsonTree] => [name, value]),
        ),
        { maxLength: 8 },
      )
      .map((pairs) => new JsonPairs(pairs)),
  }));
  const deep = fc.integer({ min: 1000, max: 120_000 });
  return fc.oneof(
    { weight: 12, arbitrary: tree.map(jsonText) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '{',
        '{"a":1,}',
        "{'a':1}",
        '[1,2',
        'undefined',
        'NaN',
        '{"a":01}',
        '\ufeff{}',
        '{"a":"\\ud800"}',
        '{"a":"\\u0000"}',
        '"\\x"',
        '',
        ' ',
        'null',
        '[]',
        '""',
        '0',
        '{"__proto__":{"isAdmin":true}}',
        '{"constructor":{"prototype":{"x":1}}}',
      ),
    },
    { weight: 1, arbitrary: tree.chain((t) => fc.nat().map((cut) => jsonText(t).slice(0, cut % Math.max(1, jsonText(t).length)))) },
    { weight: 1, arbitrary: deep.map((n) => `${'['.repeat(n)}${']'.repeat(n)}`) },
    // Deep nesting as the value of a field the resource has (a json field keeps whatever it is given).
    { weight: 1, arbitrary: fc.tuple(key, deep).map(([name, n]) => `{${JSON.stringify(name)}:${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`) },
    { weight: 1, arbitrary: fc.constantFrom(`"${'a'.repeat(1_100_000)}"`, `[${'1,'.repeat(300_000)}1]`) },
  );
}

/** A form body: the page's own field names and hostile ones, each maybe repeated, plus the CSRF token given. */
export function formArbitrary(fieldNames: readonly string[], csrf: fc.Arbitrary<string | undefined>): fc.Arbitrary<string> {
  const name = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...fieldNames) },
    { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
    { weight: 1, arbitrary: texts },
  );
  const pairs = fc.array(fc.tuple(name, texts), { maxLength: 8 });
  return fc.tuple(csrf, pairs, fc.constantFrom(...RAW_QUERY_PARTS, '')).map(([token, fields, raw]) => {
    const all = token === undefined ? fields : [['_csrf', token] as [string, string], ...fields];
    return [...all.map(([n, v]) => `${percentEncoded(n)}=${percentEncoded(v)}`), raw].filter((p) => p !== '').join('&');
  });
}

/** A path parameter: the ids given, or text that is no id at all. */
export function pathValueArbitrary(ids: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ids) },
    { weight: 2, arbitrary: texts.filter((t) => t !== '' && !/^\s*\+?\d+\s*$/.test(t)).map(percentEncoded) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '%',
        '%zz',
        '%00',
        '%2e%2e',
        '%2F',
        '0',
        '-1',
        '00',
        '1e3',
        '0x1',
        '4294967297',
        '99999999999999999999',
        '%C0%80',
        '%ED%A0%80',
      ),
    },
  );
}
