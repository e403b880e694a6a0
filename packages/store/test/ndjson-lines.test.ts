// An import's lines however its bytes come in chunks: a line ends at LF only, a multi-byte character or a CRLF
// cut between two chunks is still one, a blank line keeps its number but is no record, a line longer than kept
// is reported with its length only, and the upload's count is the reader's number of lines.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { LineSplitter, type NdjsonLine } from '../src/bulk/ndjson-lines.ts';

const piece = fc.oneof(
  fc.constantFrom('\n', '\r\n', '\r', '\u2028', '\u2029', ' ', '\t', '\u00e9', '\u{1f600}', '{"a":1}', 'x'.repeat(300)),
  fc.string({ unit: 'binary', maxLength: 5 }),
);

/** The lines a reader taking LF as the only line end finds, by a plain split. */
function expected(input: Buffer, keep: number): NdjsonLine[] {
  const parts = input.toString('latin1').split('\n');
  if (parts.at(-1) === '') parts.pop();
  return parts.flatMap((part, i) => {
    const bytes = Buffer.from(part, 'latin1');
    if (/^[ \t\r]*$/.test(part)) return [];
    return [{ number: i + 1, bytes: bytes.length, text: bytes.length <= keep ? bytes : undefined }];
  });
}

test('lines found in any chunking are the lines a split at LF finds, and the count agrees', () => {
  fc.assert(
    fc.property(
      fc.array(piece, { maxLength: 40 }),
      fc.array(fc.nat(), { maxLength: 8 }),
      fc.constantFrom(0, 8, 1024),
      (pieces, cuts, keep) => {
        const input = Buffer.from(pieces.join(''));
        const at = [...new Set(cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...at].map((start, i) => input.subarray(start, at[i] ?? input.length)).filter((c) => c.length > 0);
        const splitter = new LineSplitter(keep);
        const found = [...chunks.flatMap((chunk) => splitter.push(chunk)), ...splitter.end()];
        assert.deepEqual(found, expected(input, keep));
        const counter = new LineSplitter(0);
        assert.equal(chunks.reduce((sum, chunk) => sum + counter.count(chunk), 0) + counter.end().length, found.length);
      },
    ),
    { numRuns: 500 },
  );
});

test('U+2028, U+2029 and a lone CR stay inside their line', () => {
  const splitter = new LineSplitter(1024);
  const lines = [...splitter.push(Buffer.from('{"a":"x\u2028y"}\n\n{"b":"\u2029"}\r\n{"c":1}\r{"d":2}')), ...splitter.end()];
  assert.deepEqual(
    lines.map((line) => [line.number, line.text?.toString('utf8')]),
    [
      [1, '{"a":"x\u2028y"}'],
      [3, '{"b":"\u2029"}\r'],
      [4, '{"c":1}\r{"d":2}'],
    ],
  );
});
