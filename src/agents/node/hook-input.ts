/**
 * What a hook is given, checked before anything is read: the payload is the agent's (or, in a
 * hostile setup, anyone's) and names a file forge will read and commit. A transcript path must be
 * a .jsonl file inside the agent's own transcript directory (symlinks and `..` resolved first);
 * a Codex thread id is a plain id; payloads are capped.
 */
import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import { ForgeError } from '../../errors';

/** Claude Code's Stop payload is a few hundred bytes; Codex's notification carries the last message. */
export const MAX_HOOK_PAYLOAD_BYTES = 1 << 20;

const TRANSCRIPT_WAIT_MS = 3_000;

function refuse(message: string, data: Record<string, unknown> = {}): ForgeError {
  return new ForgeError('AGENT_HOOK_REFUSED', message, { data, hint: 'forge agent configures this hook itself; run the agent through forge agent rather than calling the hook by hand.' });
}

export function parsePayload(text: string, kind: string): Record<string, unknown> {
  if (Buffer.byteLength(text) > MAX_HOOK_PAYLOAD_BYTES) throw refuse(`The ${kind} hook's payload is over ${MAX_HOOK_PAYLOAD_BYTES} bytes; nothing was committed.`, { bytes: Buffer.byteLength(text) });
  let value: unknown;
  try {
    value = JSON.parse(text.trim() === '' ? '{}' : text);
  } catch {
    throw refuse(`The ${kind} hook's payload is not JSON; nothing was committed.`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw refuse(`The ${kind} hook's payload is not a JSON object; nothing was committed.`);
  return value as Record<string, unknown>;
}

/** Reads standard input up to the cap (a payload over it is refused without reading the rest). */
export async function readCappedStdin(stream: AsyncIterable<Buffer | string>, kind: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MAX_HOOK_PAYLOAD_BYTES) throw refuse(`The ${kind} hook's payload is over ${MAX_HOOK_PAYLOAD_BYTES} bytes; nothing was committed.`, { bytes: size });
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Claude Code's transcript_path, resolved, inside <config dir>/projects/ (CLAUDE_CONFIG_DIR, else ~/.claude). */
export async function claudeTranscriptPath(value: unknown, env: Readonly<Record<string, string | undefined>>): Promise<string> {
  if (typeof value !== 'string' || value === '') throw refuse('The claude-stop hook got no transcript_path; nothing was committed.');
  if (value.includes('\0') || !value.endsWith('.jsonl')) throw refuse(`The transcript path ${JSON.stringify(value.slice(0, 200))} is not a Claude Code transcript (.jsonl); nothing was committed.`);
  const root = join(env['CLAUDE_CONFIG_DIR'] || join(env['HOME'] || homedir(), '.claude'), 'projects');
  const realRoot = await realpath(root).catch(() => root);
  // An interactive Claude Code may run the first turn's Stop hook before the file is written.
  let real = await realpath(value).catch(() => null);
  for (const until = Date.now() + TRANSCRIPT_WAIT_MS; real === null && Date.now() < until; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    real = await realpath(value).catch(() => null);
  }
  if (real === null) throw new ForgeError('AGENT_TRANSCRIPT_NOT_FOUND', `Cannot read the agent's transcript ${value}: it does not exist. The turn's file changes are kept pending.`, { data: { path: value } });
  if (!real.startsWith(realRoot + sep)) throw refuse(`The transcript path ${JSON.stringify(value.slice(0, 200))} is outside Claude Code's transcripts (${realRoot}); nothing was committed.`, { path: value, root: realRoot });
  return real;
}

/** Codex's thread id: it names the rollout file forge looks for. */
export function codexThreadId(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !/^[A-Za-z0-9-]{1,128}$/.test(value)) throw refuse(`The codex-notify hook's thread-id ${JSON.stringify(String(value).slice(0, 200))} is not a thread id; nothing was committed.`);
  return value;
}
