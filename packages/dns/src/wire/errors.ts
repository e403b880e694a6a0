/** A packet that cannot be decoded; `offset` is where decoding stopped. */
export class DnsDecodeError extends Error {
  override name = 'DnsDecodeError';
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(`${message} (at byte ${offset})`);
    this.offset = offset;
  }
}

/** A message or record that cannot be put on the wire (too long, value out of range). */
export class DnsEncodeError extends Error {
  override name = 'DnsEncodeError';
}
