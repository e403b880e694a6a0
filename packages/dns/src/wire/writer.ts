// A growable output buffer with RFC 1035 §4.1.4 name compression.
import { lowerByte, type Name } from '../name.ts';
import { DnsEncodeError } from './errors.ts';

const MAX_MESSAGE = 0xffff;
const MAX_POINTER = 0x3fff;

export class Writer {
  buf: Uint8Array;
  view: DataView;
  length = 0;
  /** Hash of a name suffix's exact bytes -> where it was first written (checked on use). */
  readonly suffixes = new Map<number, number>();
  readonly #hashes = new Int32Array(128);
  readonly #starts = new Int32Array(128);

  constructor(initial = 512) {
    this.buf = new Uint8Array(initial);
    this.view = new DataView(this.buf.buffer);
  }

  reserve(n: number): void {
    const need = this.length + n;
    if (need <= this.buf.length) return;
    if (need > MAX_MESSAGE) throw new DnsEncodeError('message longer than 65535 bytes');
    const next = new Uint8Array(Math.min(MAX_MESSAGE, Math.max(need, this.buf.length * 2)));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): void {
    this.reserve(1);
    this.buf[this.length++] = v;
  }

  u16(v: number): void {
    this.reserve(2);
    this.view.setUint16(this.length, v);
    this.length += 2;
  }

  u32(v: number): void {
    this.reserve(4);
    this.view.setUint32(this.length, v);
    this.length += 4;
  }

  bytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  characterString(b: Uint8Array): void {
    if (b.length > 255) throw new DnsEncodeError('character-string longer than 255 bytes');
    this.u8(b.length);
    this.bytes(b);
  }

  setU16(at: number, v: number): void {
    this.view.setUint16(at, v);
  }

  /**
   * Writes a name, pointing at an earlier copy of a suffix when `compress` is set. Every suffix
   * written is remembered, so later names may point into this one either way. Matching is by
   * exact bytes, so compression never changes a name's case.
   */
  name(name: Name, compress: boolean, lowercase = false): void {
    const wire = name.wire;
    const starts = this.#starts;
    const hashes = this.#hashes;
    let count = 0;
    for (let at = 0; wire[at] !== 0; at += wire[at] + 1) starts[count++] = at;
    // FNV-1a over each suffix, built from the right so each label is hashed once.
    let h = 0x811c9dc5;
    for (let i = count - 1; i >= 0; i--) {
      const start = starts[i];
      const end = start + wire[start] + 1;
      for (let j = start; j < end; j++) h = Math.imul(h ^ wire[j], 0x01000193);
      hashes[i] = h;
    }
    for (let i = 0; i < count; i++) {
      const at = starts[i];
      const known = this.suffixes.get(hashes[i]);
      if (compress && known !== undefined && this.#sameName(known, wire, at)) {
        this.u16(0xc000 | known);
        return;
      }
      if (known === undefined && this.length <= MAX_POINTER) this.suffixes.set(hashes[i], this.length);
      const len = wire[at];
      this.reserve(len + 1);
      if (lowercase) {
        for (let k = 0; k <= len; k++) this.buf[this.length + k] = lowerByte(wire[at + k]);
      } else {
        this.buf.set(wire.subarray(at, at + len + 1), this.length);
      }
      this.length += len + 1;
    }
    this.u8(0);
  }

  /** Does the name written at `offset` (following our own pointers) equal wire[at..]? */
  #sameName(offset: number, wire: Uint8Array, at: number): boolean {
    const buf = this.buf;
    let p = offset;
    for (;;) {
      let len = buf[p];
      while ((len & 0xc0) === 0xc0) {
        p = ((len & 0x3f) << 8) | buf[p + 1];
        len = buf[p]!;
      }
      if (len !== wire[at]) return false;
      if (len === 0) return true;
      for (let k = 1; k <= len; k++) if (buf[p + k] !== wire[at + k]) return false;
      p += len + 1;
      at += len + 1;
    }
  }

  /** Empties the writer for the next message, keeping its buffer. */
  reset(): void {
    this.length = 0;
    this.suffixes.clear();
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}
