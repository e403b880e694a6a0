// An import's lines, read from bytes: a line ends at 0x0A only (U+2028, U+2029 and a lone CR belong to the line,
// as JSON allows them in strings and an export writes them so), and a line of nothing but JSON whitespace (space,
// tab, CR) holds no record. The upload's count and the import's reading both split here, so an import answers
// exactly as many lines as its rows_total says, each under its own line number.

const LF = 0x0a;

export interface NdjsonLine {
  /** Counted from 1, blank lines included, as an editor numbers them. */
  number: number;
  bytes: number;
  /** The line's bytes (without its LF); undefined for a line longer than the splitter keeps. */
  text: Buffer | undefined;
}

/** Past this many bytes of a line that holds something, its end is searched for natively rather than byte by byte. */
const SKIP_AFTER = 256;

export class LineSplitter {
  private number = 0;
  private bytes = 0;
  private filled = false;
  private parts: Buffer[] = [];
  private readonly keep: number;

  /** `keep`: the longest line whose bytes are kept. One splitter either counts or pushes, not both. */
  constructor(keep: number) {
    this.keep = keep;
  }

  /** How many lines holding something this chunk ends, their bytes not kept (an upload's count). */
  count(chunk: Buffer): number {
    return this.scan(chunk, undefined);
  }

  /** The lines holding something that this chunk ends. */
  push(chunk: Buffer): NdjsonLine[] {
    const lines: NdjsonLine[] = [];
    this.scan(chunk, lines);
    return lines;
  }

  /** The last line, when the input does not end with LF. */
  end(): NdjsonLine[] {
    const lines: NdjsonLine[] = [];
    if (this.filled) this.finish(lines);
    return lines;
  }

  // One pass over the bytes in JavaScript: far cheaper than a native call per line when lines are short or blank.
  private scan(chunk: Buffer, lines: NdjsonLine[] | undefined): number {
    let ended = 0;
    let start = 0;
    let run = 0;
    let filled = this.filled;
    for (let i = 0; i < chunk.length; i += 1) {
      const byte = chunk[i];
      if (byte === LF) {
        if (filled) ended += 1;
        if (lines !== undefined) {
          if (i > start) this.take(chunk, start, i);
          this.filled = filled;
          this.finish(lines);
        }
        filled = false;
        start = i + 1;
        run = 0;
      } else if (!filled) {
        if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) filled = true;
      } else if (++run > SKIP_AFTER) {
        const end = chunk.indexOf(LF, i);
        if (end === -1) break;
        i = end - 1;
      }
    }
    this.filled = filled;
    if (lines !== undefined && start < chunk.length) this.take(chunk, start, chunk.length);
    return ended;
  }

  private take(chunk: Buffer, start: number, stop: number): void {
    this.bytes += stop - start;
    if (this.bytes <= this.keep) this.parts.push(chunk.subarray(start, stop));
    else if (this.parts.length > 0) this.parts = [];
  }

  private finish(lines: NdjsonLine[]): void {
    this.number += 1;
    if (this.filled)
      lines.push({
        number: this.number,
        bytes: this.bytes,
        text: this.bytes <= this.keep ? Buffer.concat(this.parts, this.bytes) : undefined,
      });
    this.bytes = 0;
    this.filled = false;
    if (this.parts.length > 0) this.parts = [];
  }
}

/** The lines holding something, read from a stream of bytes (a file). */
export async function* ndjsonLines(source: AsyncIterable<Buffer>, keep: number): AsyncGenerator<NdjsonLine> {
  const splitter = new LineSplitter(keep);
  for await (const chunk of source) yield* splitter.push(chunk);
  yield* splitter.end();
}
