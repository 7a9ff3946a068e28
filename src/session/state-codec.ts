/** Reading and writing the session state file with its schema (stable, diff-friendly JSON). */
import { ForgeError } from '../errors';
import { READABLE_STATE_VERSIONS, SESSION_STATE_VERSION, SessionStateSchema, ToolCallRecordSchema, type SessionState } from './state';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The tool calls' line in the document encoded without them (keys at depth 1 are indented by two). */
const EMPTY_TOOL_CALLS = '\n  "toolCalls": []';
/** Records' bytes kept between the two passes up to this much (above: stringified twice). */
const KEPT_RECORD_BYTES = 4 << 20;

/**
 * `JSON.stringify(SessionStateSchema.parse(state), null, 2) + '\n'` as UTF-8: parsing first puts
 * keys in schema order, so equal states give byte-equal files. The tool calls (a long turn's tens
 * of megabytes) are parsed and written one at a time into bytes of the exact length, so the
 * document is never one string beside its bytes.
 */
export function encodeState(state: SessionState): Uint8Array {
  const shell = orWholeParseError(state, () => JSON.stringify(SessionStateSchema.parse({ ...state, toolCalls: [] }), null, 2) + '\n');
  const calls = orWholeParseError(state, () => [...state.toolCalls]);
  // Each record indented as an element of the top-level `toolCalls` array (a JSON string holds no raw newline).
  const record = (i: number) => orWholeParseError(state, () => JSON.stringify(ToolCallRecordSchema.parse(calls[i]), null, 2).replaceAll('\n', '\n    '));
  const at = shell.indexOf(EMPTY_TOOL_CALLS) + EMPTY_TOOL_CALLS.length - 1;
  const head = calls.length === 0 ? shell.slice(0, at) : `${shell.slice(0, at)}\n    `;
  const tail = calls.length === 0 ? shell.slice(at) : `\n  ${shell.slice(at)}`;
  // Two passes (the length, then the bytes); the records' bytes are kept between them while small.
  const kept: Array<Uint8Array | null> = [];
  let length = utf8Length(head) + utf8Length(tail) + Math.max(0, calls.length - 1) * SEPARATOR.length;
  let keptBytes = 0;
  for (let i = 0; i < calls.length; i++) {
    const text = record(i);
    const bytes = keptBytes + text.length <= KEPT_RECORD_BYTES ? encoder.encode(text) : null;
    length += bytes?.length ?? utf8Length(text);
    keptBytes += bytes?.length ?? 0;
    kept.push(bytes);
  }
  const out = new Uint8Array(length);
  let written = encoder.encodeInto(head, out).written;
  for (let i = 0; i < calls.length; i++) {
    if (i > 0) written += encoder.encodeInto(SEPARATOR, out.subarray(written)).written;
    const bytes = kept[i];
    if (bytes) {
      out.set(bytes, written);
      written += bytes.length;
    } else written += encoder.encodeInto(record(i), out.subarray(written)).written;
    kept[i] = null;
  }
  written += encoder.encodeInto(tail, out.subarray(written)).written;
  if (written !== length) throw new Error(`state encoding: ${written} bytes written, ${length} expected`);
  return out;
}

/** Between two records of the `toolCalls` array. */
const SEPARATOR = ',\n    ';

/** A piece's own result; where it fails, the whole state's parse error if there is one (its paths from the top). */
function orWholeParseError<T>(state: SessionState, piece: () => T): T {
  try {
    return piece();
  } catch (error) {
    SessionStateSchema.parse(state);
    throw error;
  }
}

/** The length of `text` in UTF-8 as TextEncoder writes it (a lone surrogate as U+FFFD, 3 bytes). */
export function utf8Length(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2;
      i++;
    } else n += 2;
  }
  return n;
}

export function decodeState(bytes: Uint8Array, where: string): SessionState {
  let raw: unknown;
  try {
    raw = JSON.parse(decoder.decode(bytes));
  } catch (error) {
    throw new ForgeError('SESSION_STATE_INVALID', `Session state ${where} is not valid JSON.`, { data: { where }, cause: error });
  }
  const version = (raw as { version?: unknown })?.version;
  if (typeof version !== 'number' || !READABLE_STATE_VERSIONS.includes(version)) {
    throw new ForgeError('SESSION_STATE_INVALID', `Session state ${where} has version ${String(version)}; this engine reads versions ${READABLE_STATE_VERSIONS.join(' and ')} (and writes ${SESSION_STATE_VERSION}).`, { data: { where, version } });
  }
  const parsed = SessionStateSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ForgeError('SESSION_STATE_INVALID', `Session state ${where} does not match its schema: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}.`, { data: { where } });
  }
  return parsed.data;
}
