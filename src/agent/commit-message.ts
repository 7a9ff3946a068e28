/**
 * Turn commit messages from a cheap model: given the request, the agent's closing words and the
 * turn's diff, it writes a subject (and maybe a body). Any failure, or an answer with nothing
 * usable, gives null and the caller keeps the deterministic summary.
 */
import type { FilePatch } from '../session';
import { NO_TOOLS, type Provider } from './providers/types';

const MAX_DIFF_CHARS = 12_000;
const MAX_MESSAGE_CHARS = 4_000;
const MAX_SUBJECT_CHARS = 72;

export interface CommitMessageInput {
  userMessage: string;
  /** The agent's last text of the turn. */
  finalText: string;
  patches: readonly FilePatch[];
  signal?: AbortSignal;
}

/** Cleans a model's answer into a commit message, or null when nothing usable is left. */
export function cleanCommitMessage(answer: string): string | null {
  const lines = answer
    .replace(/^\s*```[^\n]*\n?/, '')
    .replace(/\n?```\s*$/, '')
    .split(/\r\n|\r|\n/)
    .map((l) => l.trimEnd())
    .filter((l) => !/^(Forge-Session|Forge-Turn):/i.test(l));
  while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
  if (lines.length === 0) return null;
  let subject = lines[0]!.trim().replace(/^(subject|commit message):\s*/i, '').replace(/^["'`]|["'`]$/g, '');
  if (subject === '') return null;
  if (subject.length > MAX_SUBJECT_CHARS) subject = `${subject.slice(0, MAX_SUBJECT_CHARS - 1).trimEnd()}…`;
  const body = lines.slice(1).join('\n').trim();
  const message = body === '' ? subject : `${subject}\n\n${body}`;
  return message.length <= MAX_MESSAGE_CHARS ? message : message.slice(0, MAX_MESSAGE_CHARS);
}

export async function modelCommitMessage(provider: Provider, input: CommitMessageInput): Promise<string | null> {
  let diff = input.patches.map((p) => p.patch).join('');
  if (diff.length > MAX_DIFF_CHARS) diff = `${diff.slice(0, MAX_DIFF_CHARS)}\n[… diff cut]`;
  try {
    const response = await provider.complete({
      system:
        'You write git commit messages. Answer with the message only: a subject line in the imperative mood of at most 72 characters, then optionally a blank line and a short body. No Markdown fences, no preamble.',
      messages: [{ role: 'user', content: `Request:\n${input.userMessage}\n\nWhat the agent said at the end:\n${input.finalText || '(nothing)'}\n\nDiff:\n${diff || '(no code changes)'}` }],
      tools: NO_TOOLS,
      maxOutputTokens: 300,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    return cleanCommitMessage(response.text);
  } catch {
    return null;
  }
}
