/**
 * The patch input size limit (REQ-PATCH-008): 60,000 tokens, estimated as UTF-8 bytes / 4. Large
 * patches are hard to review and risk the context window; smaller, incremental patches are preferred.
 */
import { ForgeError } from '../errors';
import type { PatchOp } from './patch-types';

export const MAX_PATCH_INPUT_TOKENS = 60_000;
export const BYTES_PER_TOKEN = 4;

/** Estimated tokens of an input of `inputBytes` UTF-8 bytes. */
export function estimateTokens(inputBytes: number): number {
  return Math.ceil(inputBytes / BYTES_PER_TOKEN);
}

/** Throws PATCH_TOO_LARGE when `inputBytes` (UTF-8 bytes of the patch input) exceeds the limit. */
export function checkPatchSize(inputBytes: number): void {
  const tokens = estimateTokens(inputBytes);
  if (tokens <= MAX_PATCH_INPUT_TOKENS) return;
  throw new ForgeError(
    'PATCH_TOO_LARGE',
    `patch input is too large: about ${tokens} tokens (${inputBytes} bytes / ${BYTES_PER_TOKEN}), over the ` +
      `limit of ${MAX_PATCH_INPUT_TOKENS} tokens. Break the change into several smaller patch calls ` +
      '(for example one function or section per call), each well under the limit.',
    { data: { inputBytes, estimatedTokens: tokens, maxTokens: MAX_PATCH_INPUT_TOKENS } },
  );
}

/** UTF-8 bytes of every string field of the patches, the input the limit applies to. */
export function patchInputBytes(patches: readonly PatchOp[]): number {
  let total = 0;
  for (const p of patches) {
    for (const s of [p.oldText, p.newText, p.toClipboard, p.fromClipboard, p.reindent?.strip, p.reindent?.add]) {
      if (typeof s === 'string') total += utf8Length(s);
    }
  }
  return total;
}

/** UTF-8 byte length without encoding (a lone surrogate counts as the 3-byte U+FFFD it would become). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
