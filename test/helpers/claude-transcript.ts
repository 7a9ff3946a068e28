/** Claude Code transcripts for the converter tests: entries as Claude Code 2.1 writes them. */

export interface TranscriptTurn {
  prompt: string;
  /** Tool calls (Bash `ls`) before the answer, each with its result. */
  calls: number;
  /** A local slash command (/model) after the answer. */
  command?: boolean;
  /** The answer's text (default `answer <i>`). */
  answer?: string;
}

export const jsonl = (entries: object[]) => entries.map((e) => JSON.stringify(e)).join('\n') + '\n';

export function claudeTranscript(turns: TranscriptTurn[]): object[] {
  const out: object[] = [];
  turns.forEach((t, i) => {
    out.push({ type: 'user', uuid: `p${i}`, sessionId: 's', message: { role: 'user', content: t.prompt } });
    for (let c = 0; c < t.calls; c++) {
      out.push({ type: 'assistant', uuid: `t${i}-${c}`, sessionId: 's', message: { id: `m${i}-${c}`, role: 'assistant', content: [{ type: 'tool_use', id: `call${i}-${c}`, name: 'Bash', input: { command: 'ls' } }] } });
      out.push({ type: 'user', uuid: `r${i}-${c}`, sessionId: 's', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `call${i}-${c}`, content: 'ok' }] } });
    }
    out.push({ type: 'assistant', uuid: `a${i}`, sessionId: 's', message: { id: `m${i}`, role: 'assistant', content: [{ type: 'text', text: t.answer ?? `answer ${i}` }] } });
    if (t.command) {
      out.push({ type: 'user', uuid: `c${i}`, sessionId: 's', message: { role: 'user', content: '<command-name>/model</command-name>' } });
      out.push({ type: 'user', uuid: `o${i}`, sessionId: 's', message: { role: 'user', content: '<local-command-stdout>ok</local-command-stdout>' } });
    }
  });
  return out;
}
