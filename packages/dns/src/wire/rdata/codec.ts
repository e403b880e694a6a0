import type { Reader } from '../reader.ts';
import type { Writer } from '../writer.ts';

export interface EncodeOptions {
  /** The type's names may be compressed (RFC 3597 §4 allows it only for RFC 1035 types). */
  compress: boolean;
  /** Write names lower-cased (the canonical form, RFC 4034 §6.2 as amended by RFC 6840 §5.1). */
  lowercase: boolean;
}

/** Reads one type's rdata (the reader's `end` is the rdata's end) and writes it back. */
export interface RdataCodec<D> {
  decode(r: Reader): D;
  encode(w: Writer, data: D, options: EncodeOptions): void;
}
