// The window/bitmap list of types in NSEC and NSEC3 (RFC 4034 §4.1.2).
import { DnsDecodeError } from '../errors.ts';
import type { Reader } from '../reader.ts';
import type { Writer } from '../writer.ts';

export function readTypeBitmap(r: Reader): number[] {
  const types: number[] = [];
  let lastWindow = -1;
  while (r.remaining > 0) {
    const at = r.offset;
    const window = r.u8('type bitmap');
    const length = r.u8('type bitmap');
    if (window <= lastWindow) throw new DnsDecodeError('type bitmap windows out of order', at);
    if (length < 1 || length > 32) throw new DnsDecodeError(`type bitmap length ${length} outside 1..32`, at);
    const bits = r.take(length, 'type bitmap');
    for (let i = 0; i < length; i++) {
      const byte = bits[i];
      for (let bit = 0; bit < 8; bit++) {
        if (byte & (0x80 >> bit)) types.push(window * 256 + i * 8 + bit);
      }
    }
    lastWindow = window;
  }
  return types;
}

export function writeTypeBitmap(w: Writer, types: readonly number[]): void {
  const sorted = [...new Set(types)].sort((a, b) => a - b);
  let i = 0;
  while (i < sorted.length) {
    const window = sorted[i] >> 8;
    const bits = new Uint8Array(32);
    let length = 0;
    for (; i < sorted.length && sorted[i] >> 8 === window; i++) {
      const low = sorted[i] & 0xff;
      bits[low >> 3] |= 0x80 >> (low & 7);
      length = (low >> 3) + 1;
    }
    w.u8(window);
    w.u8(length);
    w.bytes(bits.subarray(0, length));
  }
}
