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

export class LineSplitter {
  private number = 0;
  private bytes = 0;
  private filled = false;
  private parts: Buffer[] = [];
  private readonly keep: number;

  /** `keep`: the longest line whose bytes are kept (0: lines are only counted). */
  constructor(keep: number) {
    this.keep = keep;
  }

  /** The lines holding something that this chunk ends. */
  push(chunk: Buffer): NdjsonLine[] {
    const lines: NdjsonLine[] = [];
    for (let start = 0; start < chunk.length; ) {
      const end = chunk.indexOf(LF, start);
      const stop = end === -1 ? chunk.length : end;
      this.take(chunk, start, stop);
      if (end === -1) break;
      this.finish(lines);
      start = end + 1;
    }
    return lines;
  }

  /** The last line, when the input does not end with LF. */
  end(): NdjsonLine[] {
    const lines: NdjsonLine[] = [];
    if (this.bytes > 0) this.finish(lines);
    return lines;
  }

  private take(chunk: Buffer, start: number, stop: number): void {
    for (let i = start; !this.filled && i < stop; i += 1) {
      const byte = chunk[i];
      if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) this.filled = true;
    }
    const length = stop - start;
    this.bytes += length;
    if (this.bytes <= this.keep) this.parts.push(chunk.subarray(start, stop));
    else this.parts = [];
  }

  private finish(lines: NdjsonLine[]): void {
    this.number += 1;
    if (this.filled) lines.push({ number: this.number, bytes: this.bytes, text: this.bytes <= this.keep ? Buffer.concat(this.parts, this.bytes) : undefined });
    this.bytes = 0;
    this.filled = false;
    this.parts = [];
  }
}

/** The lines holding something, read from a stream of bytes (a file). */
export async function* ndjsonLines(source: AsyncIterable<Buffer>, keep: number): AsyncGenerator<NdjsonLine> {
  const splitter = new LineSplitter(keep);
  for await (const chunk of source) yield* splitter.push(chunk);
  yield* splitter.end();
}
