/** Reading and writing the session state file with its schema (stable, diff-friendly JSON). */
import { ForgeError } from '../errors';
import { READABLE_STATE_VERSIONS, SESSION_STATE_VERSION, SessionStateSchema, type SessionState } from './state';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeState(state: SessionState): Uint8Array {
  // Parsing first puts keys in schema order, so equal states give byte-equal files.
  return encoder.encode(JSON.stringify(SessionStateSchema.parse(state), null, 2) + '\n');
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
