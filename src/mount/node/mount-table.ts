/**
 * What the kernel has mounted where (Linux: /proc/self/mountinfo), and the name a forge mount
 * gives itself there (`forge:<session>@<pid>`), so `forge mount --unmount` and the next mount
 * can tell a live mount from one whose process was killed.
 */
import { readFileSync } from 'node:fs';

export interface MountEntry {
  dir: string;
  source: string;
  fsType: string;
}

export function forgeFsName(sessionId: string, pid: number): string {
  return `forge:${sessionId}@${pid}`;
}

export function parseForgeFsName(source: string): { session: string; pid: number } | null {
  const match = /^forge:(.+)@(\d+)$/.exec(source);
  return match ? { session: match[1]!, pid: Number(match[2]) } : null;
}

/** The kernel's mount at exactly `dir`, or null (and null where there is no mountinfo). */
export function mountAt(dir: string): MountEntry | null {
  let found: MountEntry | null = null;
  for (const entry of mountTable()) if (entry.dir === dir) found = entry; // the last one is on top
  return found;
}

/** Every mount whose mount point starts with `prefix` (run_command's private mounts in the temp directory). */
export function mountsStartingWith(prefix: string): MountEntry[] {
  return mountTable().filter((entry) => entry.dir.startsWith(prefix));
}

function mountTable(): MountEntry[] {
  let text: string;
  try {
    text = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const [fsType = '', source = ''] = right.split(' ');
    out.push({ dir: unescape(left.split(' ')[4] ?? ''), source: unescape(source), fsType });
  }
  return out;
}

/** mountinfo writes space, tab, newline and backslash as \ooo. */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}
