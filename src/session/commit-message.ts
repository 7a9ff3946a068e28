/**
 * Turn commit messages: the caller's, else a deterministic summary (the first line of the
 * user's message, then the changed paths), always ending with the Forge-Session and
 * Forge-Turn trailers that time travel and `forge log` read back.
 */

export const MAX_LISTED_PATHS = 50;

export interface MessageInput {
  sessionId: string;
  turn: number;
  /** The caller's message; used as is (trailers are still added). */
  message?: string;
  userMessage?: string;
  changedPaths: string[];
  /** Extra lines for the body (e.g. "Undo of turn 3"). */
  notes?: string[];
}

export function summarizeLine(text: string, max = 72): string {
  const first = text.split('\n').find((line) => line.trim() !== '')?.trim() ?? '';
  return first.length <= max ? first : first.slice(0, max - 1).trimEnd() + '…';
}

export function turnCommitMessage(input: MessageInput): string {
  let text: string;
  if (input.message !== undefined && input.message.trim() !== '') {
    text = input.message.trimEnd();
  } else {
    const subject = summarizeLine(input.userMessage ?? '') || `Forge turn ${input.turn}`;
    const body: string[] = [];
    if (input.changedPaths.length === 0) {
      body.push('No code changes.');
    } else {
      body.push('Changed:');
      for (const path of input.changedPaths.slice(0, MAX_LISTED_PATHS)) body.push(`  ${path}`);
      if (input.changedPaths.length > MAX_LISTED_PATHS) body.push(`  … and ${input.changedPaths.length - MAX_LISTED_PATHS} more`);
    }
    text = `${subject}\n\n${body.join('\n')}`;
  }
  if (input.notes && input.notes.length > 0) text += `\n\n${input.notes.join('\n')}`;
  return `${text}\n\nForge-Session: ${input.sessionId}\nForge-Turn: ${input.turn}\n`;
}

/**
 * A turn replayed by `forge rebase` names the commit it replays (`Forge-Replays: <oid>`), so
 * provenance can follow a line back to the original turn. A turn replayed again keeps the first
 * original: the trailer names where the turn was made, not each copy.
 */
export function withReplaysTrailer(message: string, original: string): string {
  if (parseTrailers(message)['Forge-Replays']) return message;
  const body = message.replace(/\s*$/, '');
  const paragraphs = body.split(/\n\s*\n/);
  const last = paragraphs[paragraphs.length - 1]!;
  // Into the trailer block when the message ends with one; else a block of its own.
  const endsWithTrailers = paragraphs.length > 1 && last.split('\n').every((line) => /^[A-Za-z0-9-]+:\s/.test(line));
  return `${body}${endsWithTrailers ? '\n' : '\n\n'}Forge-Replays: ${original}\n`;
}

/** Reads `Key: value` trailers from the last paragraph of a commit message. */
export function parseTrailers(message: string): Record<string, string> {
  const paragraphs = message.trimEnd().split(/\n\s*\n/);
  const last = paragraphs[paragraphs.length - 1] ?? '';
  const out: Record<string, string> = {};
  for (const line of last.split('\n')) {
    const match = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(line);
    if (match) out[match[1]!] = match[2]!;
  }
  return out;
}

export function subjectOf(message: string): string {
  return message.split('\n')[0] ?? '';
}
