/**
 * Which tool call of a turn wrote a line: the last successful call on that path whose new text
 * holds the line (compared without surrounding white space, as recovery may re-indent), else the
 * last successful call on the path. Pure: it reads the turn's recorded calls only.
 */
import type { ToolCallRecord } from '../session';

/** The text a call wrote into a file, by tool; null for a call that names no text it wrote. */
export function writtenText(call: ToolCallRecord): string | null {
  const args = (call.args ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  switch (call.tool) {
    case 'write_file':
      return str(args.content);
    case 'Edit':
      return str(args.new_snippet) ?? str(args.new_content);
    case 'Patch': {
      const patches = Array.isArray(args.patches) ? (args.patches as Array<Record<string, unknown>>) : [];
      return patches.map((p) => str(p.newText) ?? '').join('\n');
    }
    case 'search_replace': {
      const blocks = str(args.blocks) ?? '';
      // The REPLACE half of each block: after a '=======' line, up to '>>>>>>> REPLACE'.
      return [...blocks.matchAll(/^=======\r?\n([\s\S]*?)^>>>>>>> REPLACE/gm)].map((m) => m[1]).join('\n');
    }
    default:
      return null;
  }
}

export function callPath(call: ToolCallRecord): string | null {
  const path = (call.args as Record<string, unknown> | null | undefined)?.path;
  return typeof path === 'string' ? path.replace(/^\.\//, '') : null;
}

export interface CallRef {
  id: string;
  tool: string;
  /** 0-based position among the turn's calls. */
  index: number;
}

export function callThatWrote(calls: readonly ToolCallRecord[], turn: number, path: string, line: string): CallRef | null {
  const wanted = line.trim();
  let lastOnPath: CallRef | null = null;
  let lastHolding: CallRef | null = null;
  calls.forEach((call, index) => {
    if (call.turn !== turn || !call.ok || callPath(call) !== path) return;
    const ref = { id: call.id, tool: call.tool, index };
    lastOnPath = ref;
    const text = writtenText(call);
    if (wanted !== '' && text !== null && text.split('\n').some((l) => l.trim() === wanted)) lastHolding = ref;
  });
  return lastHolding ?? lastOnPath;
}
