// A large request body taken as it arrives: written to a file and hashed chunk by chunk, never held in memory,
// and refused as soon as it passes its limit (or a check of the caller's, such as a count of lines, refuses it),
// without reading the rest. The request is left paused, not destroyed, so the refusal still reaches the caller;
// Fastify closes the connection after it.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { ApiError } from '../model/api-error.ts';

/** A body streamed to a file: idempotency fingerprints it by this hash, as it would the bytes. */
export class StreamedUpload {
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
  constructor(upload: { path: string; bytes: number; sha256: string }) {
    this.path = upload.path;
    this.bytes = upload.bytes;
    this.sha256 = upload.sha256;
  }
}

export interface UploadLimits {
  maxBytes: number;
  /** The request's Content-Length, if it sent one: over the limit, refused before a byte is read. */
  declaredBytes: string | undefined;
  /** Sees each chunk before it is written; throws (an ApiError) to refuse the upload. */
  watch: (chunk: Buffer) => void;
  /** How long the upload may go without a byte arriving, and how long it may take in all. */
  idleMs: number;
  totalMs: number;
}

const tooLarge = (maxBytes: number) => new ApiError(413, `The body is larger than this API accepts here (${maxBytes} bytes)`);

/** Streams `payload` into a new file at `path` (removed again if the upload fails). */
export async function receiveUpload(payload: Readable, path: string, limits: UploadLimits): Promise<{ bytes: number; sha256: string }> {
  if (limits.declaredBytes !== undefined && Number(limits.declaredBytes) > limits.maxBytes) throw tooLarge(limits.maxBytes);
  const file = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      // A caller trickling its upload would otherwise hold the connection and the file for as long as it likes.
      const idle = setTimeout(() => stop(new ApiError(408, `Nothing of the upload arrived for ${limits.idleMs / 1000} s`)), limits.idleMs);
      const total = setTimeout(
        () => stop(new ApiError(408, `The upload did not arrive within ${limits.totalMs / 1000} s`)),
        limits.totalMs,
      );
      const stop = (error: unknown) => {
        clearTimeout(idle);
        clearTimeout(total);
        payload.off('data', onData).off('end', onEnd).off('error', stop).off('close', onClose);
        payload.pause();
        file.off('drain', onDrain);
        reject(error instanceof Error ? error : new Error(String(error)));
      };
      const onDrain = () => payload.resume();
      const onData = (chunk: Buffer) => {
        idle.refresh();
        bytes += chunk.length;
        try {
          if (bytes > limits.maxBytes) throw tooLarge(limits.maxBytes);
          limits.watch(chunk);
        } catch (error) {
          stop(error);
          return;
        }
        hash.update(chunk);
        if (!file.write(chunk)) payload.pause();
      };
      const onEnd = () => {
        clearTimeout(idle);
        clearTimeout(total);
        payload.off('data', onData).off('error', stop).off('close', onClose);
        file.off('drain', onDrain).off('error', stop);
        file.end((error?: Error | null) => (error ? reject(error) : resolve()));
      };
      // Closed before its end: the caller went away mid-upload.
      const onClose = () => stop(new ApiError(400, 'The upload ended before its last byte arrived'));
      file.on('drain', onDrain).on('error', stop);
      payload.on('data', onData).on('end', onEnd).on('error', stop).on('close', onClose);
      payload.resume();
    });
  } catch (error) {
    file.destroy();
    await rm(path, { force: true });
    throw error;
  }
  return { bytes, sha256: hash.digest('hex') };
}
