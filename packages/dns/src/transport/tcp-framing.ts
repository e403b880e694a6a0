// DNS over TCP frames each message with its length in two bytes (RFC 1035 §4.2.2, RFC 7766 §8):
// the one place that writes and reads that prefix, for queries, zone transfers and the lab's servers.

/** The message with its two-byte length in front, ready to write to the socket. */
export function tcpFrame(message: Uint8Array): Buffer {
  const framed = Buffer.alloc(2 + message.length);
  framed.writeUInt16BE(message.length, 0);
  framed.set(message, 2);
  return framed;
}

/** Collects bytes as a TCP stream delivers them and hands out whole messages. */
export class TcpFrames {
  #buffered: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): void {
    this.#buffered = this.#buffered.length === 0 ? chunk : Buffer.concat([this.#buffered, chunk]);
  }

  /** The length the next message announces, once its prefix has come: a reader may refuse it before it all arrives. */
  nextLength(): number | undefined {
    return this.#buffered.length >= 2 ? this.#buffered.readUInt16BE(0) : undefined;
  }

  /** Takes the next whole message off the stream; undefined while part of it is still to come. */
  next(): Uint8Array | undefined {
    const length = this.nextLength();
    if (length === undefined || this.#buffered.length < 2 + length) return undefined;
    const message = new Uint8Array(this.#buffered.buffer, this.#buffered.byteOffset + 2, length);
    this.#buffered = this.#buffered.subarray(2 + length);
    return message;
  }

  /** Takes every whole message that has come. */
  takeAll(): Uint8Array[] {
    const messages: Uint8Array[] = [];
    for (let message = this.next(); message; message = this.next()) messages.push(message);
    return messages;
  }
}
