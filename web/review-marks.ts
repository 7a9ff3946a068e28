/**
 * What the reviewer has seen, remembered in this browser (localStorage, per session): the files
 * of the session diff marked viewed (each with the diff it was marked on: a file that changed
 * since is no longer viewed), the turns marked viewed, and the turns that were there the last
 * time the session was opened (a turn not among them is new "since I last looked").
 * Nothing here goes to the server.
 */
export interface Marks {
  /** path → a fingerprint of the file's diff when it was marked viewed. */
  files: Record<string, string>;
  /** Turn commits marked viewed. */
  turns: string[];
  /** The turn commits on the page when the session was last opened, or null on a first visit. */
  lastSeen: string[] | null;
}

const key = (session: string) => `forge-inspect:review:${session}`;

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null; // storage disabled: nothing is remembered
  }
}

export function loadMarks(session: string): Marks {
  const empty: Marks = { files: {}, turns: [], lastSeen: null };
  try {
    const raw = storage()?.getItem(key(session));
    if (!raw) return empty;
    const parsed = JSON.parse(raw) as Partial<Marks>;
    return {
      files: parsed.files && typeof parsed.files === 'object' ? Object.fromEntries(Object.entries(parsed.files).filter((e): e is [string, string] => typeof e[1] === 'string')) : {},
      turns: Array.isArray(parsed.turns) ? parsed.turns.filter((t): t is string => typeof t === 'string') : [],
      lastSeen: Array.isArray(parsed.lastSeen) ? parsed.lastSeen.filter((t): t is string => typeof t === 'string') : null,
    };
  } catch {
    return empty;
  }
}

export function saveMarks(session: string, marks: Marks): void {
  try {
    storage()?.setItem(key(session), JSON.stringify(marks));
  } catch {
    // quota or disabled storage: the marks last as long as the page
  }
}

/** A short fingerprint of a file's diff (FNV-1a of its text): a viewed mark holds for this diff only. */
export function fingerprint(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return `${text.length.toString(36)}-${(h >>> 0).toString(36)}`;
}
