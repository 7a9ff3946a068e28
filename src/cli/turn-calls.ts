/** The `--calls` of `forge turn`: a JSON array of tool calls, checked before anything is opened. */
import { isUtf8 } from 'node:buffer';
import { z } from 'zod';
import { ForgeError } from '../errors';
import { parseJsonBytes } from '../tools/json-bytes';

export const CallSchema = z.strictObject({ tool: z.string().min(1), args: z.record(z.string(), z.unknown()).optional(), id: z.string().optional() });
const CallsSchema = z.array(CallSchema);

export type CallInput = z.infer<typeof CallSchema>;
export type ToolCallList = CallInput[];

/** A string this long stays UTF-8 bytes (Utf8Text): a huge write_file is then held once. */
export const LARGE_STRING_BYTES = 1 << 20;

export function parseCalls(bytes: Buffer): ToolCallList {
  let raw: unknown;
  try {
    // Not UTF-8: decoded as before (invalid sequences become U+FFFD), then parsed.
    raw = isUtf8(bytes) ? parseJsonBytes(bytes, { largeStringBytes: LARGE_STRING_BYTES }) : JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new ForgeError('INVALID_ARGUMENT', `--calls is not valid JSON: ${(error as Error).message}`);
  }
  // The common case checked by hand (a schema parse copies every call: 1,000 calls cost ~25 ms);
  // anything else goes through the schema, whose message says what is wrong.
  if (isCallList(raw)) return raw;
  const parsed = CallsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ForgeError('INVALID_ARGUMENT', `--calls must be a JSON array of {"tool": NAME, "args": {...}}: at ${issue.path.join('.') || 'top level'}: ${issue.message}.`);
  }
  return parsed.data;
}

/** What CallsSchema accepts, without copying it: an array of {tool, args?, id?} with a non-empty tool name and an object of args. */
export function isCallList(raw: unknown): raw is ToolCallList {
  if (!Array.isArray(raw)) return false;
  for (const call of raw) if (!isCall(call)) return false;
  return true;
}

/** What CallSchema accepts, without copying it. */
export function isCall(call: unknown): call is CallInput {
  if (!isPlainObject(call)) return false;
  for (const key in call) if (key !== 'tool' && key !== 'args' && key !== 'id') return false;
  const { tool, args, id } = call;
  if (typeof tool !== 'string' || tool.length === 0) return false;
  if (id !== undefined && typeof id !== 'string') return false;
  return args === undefined || isPlainObject(args);
}

/** A plain object (also one without a prototype, which the schema accepts too); anything else goes through the schema. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
