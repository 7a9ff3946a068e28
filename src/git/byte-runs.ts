/**
 * File content as one buffer or as runs in order. A one-line edit of a 50 MB file gives its new
 * version as the old bytes around the new line (views of the old buffer, which the blob cache
 * holds anyway): hashed and deflated run by run, it never exists whole (it was 48 MiB more at
 * the peak of a big edit, issue 30).
 */
export type ByteRuns = readonly Uint8Array[];
export type Bytes = Uint8Array | ByteRuns;

export function bytesLength(bytes: Bytes): number {
  if (bytes instanceof Uint8Array) return bytes.length;
  let n = 0;
  for (const run of bytes) n += run.length;
  return n;
}

/** The runs, in order (a buffer is one run). */
export function runsOf(bytes: Bytes): ByteRuns {
  return bytes instanceof Uint8Array ? [bytes] : bytes;
}

/** One buffer of the bytes: the buffer itself when given one (or runs of one run), else a copy. */
export function joinBytes(bytes: Bytes): Uint8Array {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes.length === 1) return bytes[0]!;
  const out = new Uint8Array(bytesLength(bytes));
  let at = 0;
  for (const run of bytes) {
    out.set(run, at);
    at += run.length;
  }
  return out;
}
