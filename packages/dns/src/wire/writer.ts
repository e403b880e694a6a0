// A growable output buffer with RFC 1035 §4.1.4 name compression.
import { lowerByte, type Name } from '../name.ts';
import { DnsEncodeError } from './errors.ts';

const MAX_MESSAGE = 0xffff;
const MAX_POINTER = 0x3fff;

export class Writer {
  buf: Uint8Array;
  view: DataView;
  length = 0;
  /** Suffix bytes (as a latin1 string) -> offset. Case-sensitive, so compression keeps case. */
  readonly suffixes = new Map<string, number>();

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
   * written is remembered, so later names may point into this one either way.
   */
  name(name: Name, compress: boolean, lowercase = false): void {
    const wire = name.wire;
    if (wire.length === 1) {
      this.u8(0);
      return;
    }
    let key = '';
    for (let i = 0; i < wire.length; i++) key += String.fromCharCode(wire[i]);
    for (let at = 0; wire[at] !== 0; at += wire[at] + 1) {
      const suffix = at === 0 ? key : key.substring(at);
      if (compress) {
        const target = this.suffixes.get(suffix);
        if (target !== undefined) {
          this.u16(0xc000 | target);
          return;
        }
      }
      if (this.length <= MAX_POINTER && !this.suffixes.has(suffix)) this.suffixes.set(suffix, this.length);
      const len = wire[at];
      this.reserve(len + 1);
      if (lowercase) {
        for (let i = 0; i <= len; i++) this.buf[this.length + i] = lowerByte(wire[at + i]);
      } else {
        this.buf.set(wire.subarray(at, at + len + 1), this.length);
      }
      this.length += len + 1;
    }
    this.u8(0);
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}
