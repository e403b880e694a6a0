// Bounds-checked reads from one packet. Every overrun is a DnsDecodeError, never a RangeError.
import { MAX_NAME_LENGTH, Name } from '../name.ts';
import { DnsDecodeError } from './errors.ts';

const scratch = new Uint8Array(MAX_NAME_LENGTH);

export class Reader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  offset: number;
  /** Reads past this point fail; narrowed while reading one record's rdata. */
  end: number;

  constructor(bytes: Uint8Array, offset = 0, end = bytes.length) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.offset = offset;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  need(n: number, what: string): void {
    if (this.offset + n > this.end) throw new DnsDecodeError(`truncated ${what}`, this.offset);
  }

  u8(what = 'data'): number {
    this.need(1, what);
    return this.bytes[this.offset++];
  }

  u16(what = 'data'): number {
    this.need(2, what);
    const v = this.view.getUint16(this.offset);
    this.offset += 2;
    return v;
  }

  u32(what = 'data'): number {
    this.need(4, what);
    const v = this.view.getUint32(this.offset);
    this.offset += 4;
    return v;
  }

  /** A view (not a copy) of the next n bytes. */
  take(n: number, what = 'data'): Uint8Array {
    this.need(n, what);
    const v = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return v;
  }

  rest(): Uint8Array {
    return this.take(this.end - this.offset);
  }

  /** RFC 1035 <character-string>: a length byte and that many bytes. */
  characterString(): Uint8Array {
    return this.take(this.u8('character-string'), 'character-string');
  }

  /**
   * A possibly compressed name. Each pointer must point strictly before the previous one,
   * so loops are impossible and the walk ends after at most one step per byte.
   */
  name(): Name {
    const buf = this.bytes;
    let pos = this.offset;
    let limit = this.end;
    let lowest = pos;
    let out = 0;
    let jumped = false;
    for (;;) {
      if (pos >= limit) throw new DnsDecodeError('truncated name', pos);
      const len = buf[pos];
      if (len === 0) {
        scratch[out++] = 0;
        if (!jumped) this.offset = pos + 1;
        break;
      }
      const kind = len & 0xc0;
      if (kind === 0xc0) {
        if (pos + 1 >= limit) throw new DnsDecodeError('truncated compression pointer', pos);
        const target = ((len & 0x3f) << 8) | buf[pos + 1];
        if (target >= lowest) throw new DnsDecodeError('compression pointer does not point backwards', pos);
        if (!jumped) this.offset = pos + 2;
        jumped = true;
        lowest = target;
        pos = target;
        // Pointers may reach anywhere earlier in the message, outside a record's rdata.
        limit = buf.length;
        continue;
      }
      if (kind !== 0) throw new DnsDecodeError(`unsupported label type 0x${kind.toString(16)}`, pos);
      if (out + len + 2 > MAX_NAME_LENGTH) throw new DnsDecodeError('name longer than 255 bytes', pos);
      if (pos + 1 + len > limit) throw new DnsDecodeError('truncated label', pos);
      for (let i = 0; i <= len; i++) scratch[out + i] = buf[pos + i]!;
      out += len + 1;
      pos += len + 1;
    }
    return new Name(scratch.slice(0, out));
  }
}
