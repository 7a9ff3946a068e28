/**
 * The context a model receives with every request (spec 002, "Context Model"): instructions, a
 * summary line for every file, and the full content of the active files, within a token budget.
 *
 * Truncation rule (tokens are estimated as ceil(characters / 4)):
 *  1. The instructions and the section headings are always included; R is what they leave.
 *  2. Active files come first, in the order of the active list, within R minus the index's
 *     reserve: the complete index's size, but at most a quarter of R (and at least its heading
 *     and its "… and K more files" line). Each file is included whole while it fits (keeping
 *     room to name the files after it); the first one that does not fit is cut at a line
 *     boundary, with a marker saying which lines are missing and how to read them; the files
 *     after it are named, not shown.
 *  3. The file index gets everything the active files left: one line per visible file, sorted by
 *     path, "path (size, language): summary". If those lines do not fit, every line is only the
 *     path; if even the paths do not fit, the first paths that fit are listed, then
 *     "… and K more files". (Summaries are not computed when the paths alone exceed R.)
 * Files under .forge/ and denied paths (secrets) never appear.
 */
import type { Bytes } from '../git/byte-runs';
import type { ToolsConfig } from '../tools';
import { isVisiblePath, sha256Hex } from '../tools';
import type { Vfs, VfsEntry } from '../vfs';
import { estimateTokens } from './providers/types';
import { decodeForSummary, type FileSummary, type SummaryCache } from './summaries';

export const DEFAULT_CONTEXT_TOKENS = 24_000;

export const DEFAULT_INSTRUCTIONS = `You are a coding agent working on a git repository through tools, with no person at the keyboard.
- Your tools act on a work-in-progress view of the repository. When you end your turn, every change you made in it is committed as ONE commit, together with this conversation.
- You end your turn by answering without tool calls. Do that when the task is done (say briefly what you changed), or when you cannot go on (say why).
- Read a file (read_file) before changing it; prefer Edit or Patch for changes to part of a file, write_file for new files.
- Below: one line per file of the repository, then the full content of your active files. update_context adds files you need in full to the active files (several at once), or removes them.
- A failed tool call changed nothing: read its error, fix the call, and go on.`;

export interface ContextInput {
  view: Vfs;
  activeFiles: readonly string[];
  summaries: SummaryCache;
  toolsConfig: ToolsConfig;
  /** Default DEFAULT_CONTEXT_TOKENS. */
  budgetTokens?: number;
  /** Default DEFAULT_INSTRUCTIONS. */
  instructions?: string;
  hashContent?: (bytes: Bytes) => Promise<string>;
  signal?: AbortSignal;
}

export type ActiveFileShown = 'full' | 'cut' | 'omitted' | 'missing' | 'binary';

export interface ContextReport {
  budgetTokens: number;
  tokens: number;
  index: { files: number; listed: number; form: 'summaries' | 'paths' | 'cut' };
  active: Array<{ path: string; shown: ActiveFileShown; lines?: number; shownLines?: number; hash?: string }>;
}

export interface BuiltContext {
  system: string;
  report: ContextReport;
}

const LANGUAGES: Record<string, string> = {
  js: 'JavaScript', mjs: 'JavaScript', cjs: 'JavaScript', jsx: 'JavaScript (JSX)', ts: 'TypeScript', mts: 'TypeScript', cts: 'TypeScript', tsx: 'TypeScript (TSX)',
  py: 'Python', rb: 'Ruby', go: 'Go', rs: 'Rust', java: 'Java', kt: 'Kotlin', swift: 'Swift', c: 'C', h: 'C header', cc: 'C++', cpp: 'C++', hpp: 'C++ header',
  cs: 'C#', php: 'PHP', scala: 'Scala', sh: 'shell', bash: 'shell', zsh: 'shell', ps1: 'PowerShell', lua: 'Lua', sql: 'SQL', r: 'R', dart: 'Dart',
  ex: 'Elixir', exs: 'Elixir', erl: 'Erlang', hs: 'Haskell', ml: 'OCaml', clj: 'Clojure', vue: 'Vue', svelte: 'Svelte',
  html: 'HTML', htm: 'HTML', css: 'CSS', scss: 'SCSS', less: 'Less', md: 'Markdown', mdx: 'MDX', rst: 'reStructuredText', txt: 'text',
  json: 'JSON', jsonc: 'JSON', yaml: 'YAML', yml: 'YAML', toml: 'TOML', xml: 'XML', ini: 'INI', csv: 'CSV', lock: 'lockfile',
  png: 'image', jpg: 'image', jpeg: 'image', gif: 'image', svg: 'SVG', webp: 'image', ico: 'image', pdf: 'PDF', wasm: 'WebAssembly',
};

const NAMED: Record<string, string> = {
  Dockerfile: 'Dockerfile', Makefile: 'Makefile', '.gitignore': 'gitignore', '.gitattributes': 'gitattributes', LICENSE: 'license', 'CMakeLists.txt': 'CMake',
};

export function languageOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (NAMED[name]) return NAMED[name]!;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? (LANGUAGES[name.slice(dot + 1).toLowerCase()] ?? name.slice(dot + 1).toLowerCase()) : 'no extension';
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function cost(lines: readonly string[]): number {
  let total = 0;
  for (const line of lines) total += estimateTokens(`${line}\n`);
  return total;
}

function fence(content: string): string {
  let longest = 0;
  for (const match of content.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

function indexLine(entry: VfsEntry, summary: FileSummary | undefined): string {
  if (entry.type === 'symlink') return `${entry.path} (symlink)`;
  if (entry.type === 'submodule') return `${entry.path} (submodule)`;
  const size = summary ? `${formatSize(summary.size)}, ` : '';
  const text = summary?.summary ? `: ${summary.summary}` : '';
  return `${entry.path} (${size}${languageOf(entry.path)})${text}`;
}

interface ActiveBlock {
  path: string;
  shown: ActiveFileShown;
  lines: string[];
  totalLines?: number;
  shownLines?: number;
  hash?: string;
}

/** Lays out the active files within `budget` tokens, following rule 2. */
async function layoutActive(input: ContextInput, budget: number): Promise<{ blocks: ActiveBlock[]; used: number }> {
  const hash = input.hashContent ?? sha256Hex;
  const omittedLine = (path: string) => `### ${path}: not shown (context budget); use read_file`;
  // What naming the files after index i as "not shown" would cost: kept free, so they always fit.
  const paths = input.activeFiles;
  const tail: number[] = new Array(paths.length + 1).fill(0);
  for (let i = paths.length - 1; i >= 0; i--) tail[i] = tail[i + 1]! + cost([omittedLine(paths[i]!)]);
  const blocks: ActiveBlock[] = [];
  let used = 0;
  let full = false;
  for (const [i, path] of paths.entries()) {
    if (full) {
      const line = omittedLine(path);
      used += cost([line]);
      blocks.push({ path, shown: 'omitted', lines: [line] });
      continue;
    }
    const stat = await input.view.stat(path);
    if (stat === null || stat.type !== 'file' || !isVisiblePath(path, input.toolsConfig)) {
      const line = `### ${path}: no longer exists (remove it with update_context)`;
      used += cost([line]);
      blocks.push({ path, shown: 'missing', lines: [line] });
      continue;
    }
    const bytes = await input.view.readFile(path);
    const text = decodeForSummary(bytes);
    if (text === null) {
      const line = `### ${path}: binary file, ${formatSize(bytes.length)}, not shown`;
      used += cost([line]);
      blocks.push({ path, shown: 'binary', lines: [line] });
      continue;
    }
    const fileHash = await hash(bytes);
    const content = text.endsWith('\n') ? text.slice(0, -1) : text;
    const contentLines = text === '' ? [] : content.split('\n');
    const marker = fence(content);
    const header = `### ${path} (${contentLines.length} lines, file_hash ${fileHash})`;
    const whole = [header, marker, ...contentLines, marker];
    const wholeCost = cost(whole);
    const rest = tail[i + 1]!;
    if (used + wholeCost + rest <= budget) {
      used += wholeCost;
      blocks.push({ path, shown: 'full', lines: whole, totalLines: contentLines.length, shownLines: contentLines.length, hash: fileHash });
      continue;
    }
    // The first file that does not fit: cut to the lines that fit; the files after it are only named.
    full = true;
    const note = (from: number) => `[… lines ${from}-${contentLines.length} of ${path} not shown (context budget); read them with read_file start_line=${from}]`;
    let room = budget - used - rest - cost([header, marker, marker, note(contentLines.length)]);
    const shown: string[] = [];
    for (const line of contentLines) {
      const c = cost([line]);
      if (c > room) break;
      room -= c;
      shown.push(line);
    }
    if (shown.length > 0) {
      const lines = [header, marker, ...shown, marker, note(shown.length + 1)];
      used += cost(lines);
      blocks.push({ path, shown: 'cut', lines, totalLines: contentLines.length, shownLines: shown.length, hash: fileHash });
    } else {
      const line = omittedLine(path);
      used += cost([line]);
      blocks.push({ path, shown: 'omitted', lines: [line], totalLines: contentLines.length });
    }
  }
  return { blocks, used };
}

export async function buildContext(input: ContextInput): Promise<BuiltContext> {
  const budget = input.budgetTokens ?? DEFAULT_CONTEXT_TOKENS;
  const instructions = input.instructions ?? DEFAULT_INSTRUCTIONS;
  const activeHeading = '# Active files';
  const noActive = 'None. Add files you need in full with update_context, or read parts of them with read_file.';
  // Instructions, the blank lines between sections, and the active files' heading.
  const remaining = Math.max(0, budget - cost([instructions, '', '', activeHeading, ...(input.activeFiles.length === 0 ? [noActive] : [])]));

  const entries = (await input.view.walk('')).filter((e) => isVisiblePath(e.path, input.toolsConfig));
  const pathLines = entries.map((e) => e.path);
  const pathsCost = cost(pathLines);
  let fullLines: string[] | null = null;
  if (pathsCost <= remaining) {
    const files = entries.filter((e) => e.type === 'file').map((e) => ({ path: e.path, oid: e.oid }));
    const summaries = await input.summaries.summaries(files, input.signal);
    fullLines = entries.map((e) => indexLine(e, summaries.get(e.oid)));
  }
  const headings = {
    summaries: `# Repository files (${entries.length}): path (size, language): summary`,
    paths: `# Repository files (${entries.length}, paths only: the full index does not fit the context budget)`,
    cut: `# Repository files (${entries.length}, paths only, cut to the context budget; use list_files or search for the rest)`,
  };
  const trailer = (more: number) => `… and ${more} more files`;
  const indexWanted = fullLines ? cost([headings.summaries, ...fullLines]) : cost([headings.paths, ...pathLines]);
  // The index keeps up to a quarter of R, and at least room for its heading.
  const reserve = Math.max(Math.min(indexWanted, Math.floor(remaining / 4)), cost([headings.cut, trailer(entries.length)]));
  const active = await layoutActive(input, Math.max(0, remaining - reserve));

  const indexBudget = Math.max(0, remaining - active.used);
  let indexLines: string[];
  let form: ContextReport['index']['form'];
  if (fullLines && cost([headings.summaries, ...fullLines]) <= indexBudget) {
    form = 'summaries';
    indexLines = [headings.summaries, ...fullLines];
  } else if (cost([headings.paths, ...pathLines]) <= indexBudget) {
    form = 'paths';
    indexLines = [headings.paths, ...pathLines];
  } else {
    form = 'cut';
    let room = indexBudget - cost([headings.cut, trailer(entries.length)]);
    const shown: string[] = [];
    for (const line of pathLines) {
      const c = cost([line]);
      if (c > room) break;
      room -= c;
      shown.push(line);
    }
    indexLines = [headings.cut, ...shown, trailer(entries.length - shown.length)];
  }

  const activeSection =
    active.blocks.length === 0
      ? [activeHeading, noActive]
      : [activeHeading, ...active.blocks.flatMap((b) => b.lines)];
  const system = [instructions, '', ...indexLines, '', ...activeSection].join('\n');
  const listed = form === 'cut' ? indexLines.length - 2 : entries.length;
  return {
    system,
    report: {
      budgetTokens: budget,
      tokens: estimateTokens(system),
      index: { files: entries.length, listed, form },
      active: active.blocks.map((b) => ({
        path: b.path,
        shown: b.shown,
        ...(b.totalLines !== undefined ? { lines: b.totalLines } : {}),
        ...(b.shownLines !== undefined ? { shownLines: b.shownLines } : {}),
        ...(b.hash !== undefined ? { hash: b.hash } : {}),
      })),
    },
  };
}
