/**
 * Turning a model's arguments into a handler's typed input. Strict-mode OpenAI schemas make
 * every field required and optional ones nullable, so null is accepted wherever a field is
 * optional and means "absent". A failure becomes one TOOL_INPUT_INVALID error whose message
 * names each bad field in words a model can act on: never a stack trace, never zod's raw dump.
 */
import { z } from 'zod';
import { ForgeError } from '../errors';

/** Drops null-valued object properties, recursively (array elements are left alone). */
export function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (inner !== null) out[key] = stripNulls(inner);
  return out;
}

function fieldName(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? String(part) : `.${String(part)}`;
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

/** The object schema at a path of the input, to list the allowed keys next to an unknown one. */
function objectKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | null {
  let current: z.ZodType | undefined = schema;
  const unwrap = (s: z.ZodType): z.ZodType => {
    let inner = s;
    while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable || inner instanceof z.ZodDefault) {
      inner = inner.unwrap() as z.ZodType;
    }
    return inner;
  };
  for (const part of path) {
    if (!current) return null;
    const inner = unwrap(current);
    if (inner instanceof z.ZodObject && typeof part === 'string') current = inner.shape[part] as z.ZodType | undefined;
    else if (inner instanceof z.ZodArray && typeof part === 'number') current = inner.element as z.ZodType;
    else return null;
  }
  const inner = current ? unwrap(current) : undefined;
  return inner instanceof z.ZodObject ? Object.keys(inner.shape) : null;
}

function describeIssue(issue: z.core.$ZodIssue, schema: z.ZodType, input: unknown): { field: string; message: string } {
  const field = fieldName(issue.path) || '(arguments)';
  if (issue.code === 'unrecognized_keys') {
    const allowed = objectKeysAt(schema, issue.path);
    const where = issue.path.length === 0 ? '' : ` in \`${field}\``;
    const keys = issue.keys.map((k) => `\`${k}\``).join(', ');
    // An empty object schema (Undo, session_status) takes nothing: say so rather than list nothing.
    const list = allowed === null ? '' : allowed.length === 0 ? (issue.path.length === 0 ? ' This tool takes no arguments: pass {}.' : ` \`${field}\` takes no fields: pass {}.`) : ` Allowed fields${where}: ${allowed.join(', ')}.`;
    return { field: issue.path.length === 0 ? issue.keys[0]! : field, message: `unknown field${issue.keys.length > 1 ? 's' : ''} ${keys}${where}.${list}` };
  }
  if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined && issue.path.length > 0) {
    return { field, message: `\`${field}\` is required (${issue.expected}).` };
  }
  if (issue.path.length === 0) return { field, message: issue.message };
  const detail = issue.message.replace(/^Invalid (input|option): /, '').replace(/\bexpected int\b/, 'expected a whole number');
  return { field, message: `\`${field}\`: ${detail}.`.replace(/\.\.$/, '.') };
}

/** Parses arguments (an object, or a JSON string of one) against a tool's schema. */
export function parseToolInput<S extends z.ZodType>(toolName: string, schema: S, raw: unknown): z.output<S> {
  let args = raw;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      throw new ForgeError('TOOL_INPUT_INVALID', `The arguments for ${toolName} are not valid JSON. Pass one JSON object.`, {
        data: { issues: [{ field: '(arguments)', message: 'not valid JSON' }] },
      });
    }
  }
  if (args === undefined || args === null) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    throw new ForgeError('TOOL_INPUT_INVALID', `The arguments for ${toolName} must be one JSON object with named fields.`, {
      data: { issues: [{ field: '(arguments)', message: 'not an object' }] },
    });
  }
  const normalized = stripNulls(args);
  const result = schema.safeParse(normalized);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => describeIssue(issue, schema, normalized));
  const lines = issues.map((i) => `- ${i.message}`).join('\n');
  throw new ForgeError('TOOL_INPUT_INVALID', `Invalid arguments for ${toolName}:\n${lines}\nFix these fields and call ${toolName} again.`, {
    data: { issues },
  });
}
