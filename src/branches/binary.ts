/**
 * git's binary test for merges (xdiff-interface.c buffer_is_binary): a NUL byte in the first
 * 8000 bytes. A file that is binary on any of the three sides is not merged line by line.
 * `.gitattributes` (binary, -merge, merge drivers) is not consulted.
 */
export const BINARY_PROBE_BYTES = 8000;

export function isBinary(bytes: Uint8Array): boolean {
  const probe = bytes.length > BINARY_PROBE_BYTES ? bytes.subarray(0, BINARY_PROBE_BYTES) : bytes;
  return probe.indexOf(0) >= 0;
}
