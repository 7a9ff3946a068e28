/**
 * One-line file summaries for the context's file index, cached by blob oid so an unchanged file
 * is never summarized twice (a renamed file keeps its summary too). The default summarizer is
 * deterministic: the leading doc comment (or title) and the exported names. A cheap model can
 * summarize instead, through the same Provider interface.
 *
 * The cache is one JSON-lines file per summarizer under `<commonDir>/forge/summaries/`, read
 * once and appended to, through the repository's fs (no node:*): `{"oid", "size", "summary"}`
 * per line; a torn last line is ignored.
 */
import { errnoCode, joinPath, mkdirp, type GitFs } from '../git';
import { NO_TOOLS, type Provider } from './providers/types';

export interface FileToSummarize {
  path: string;
  bytes: Uint8Array;
}

export interface FileSummarizer {
  /** Names the cache: summaries of different summarizers never mix. */
  readonly id: string;
  summarize(file: FileToSummarize, signal?: AbortSignal): Promise<string>;
}

export interface FileSummary {
  size: number;
  /** '' when there is nothing to say; 'binary' for binary files. */
  summary: string;
}

export const MAX_SUMMARY_CHARS = 160;
const MAX_EXPORTS = 8;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeForSummary(bytes: Uint8Array): string | null {
  if (bytes.subarray(0, 8000).includes(0)) return null;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

export function clip(text: string, max = MAX_SUMMARY_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

/** The first sentence of a leading comment, docstring or Markdown title; '' when there is none. */
export function leadingDoc(text: string): string {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const skippable = (line: string) => line.trim() === '' || line.startsWith('#!') || /^\s*['"]use strict['"];?\s*$/.test(line);
  let i = 0;
  while (i < lines.length && skippable(lines[i]!)) i++;
  if (i >= lines.length) return '';
  const first = lines[i]!.trim();
  const block = (open: string, close: string, strip: (line: string) => string): string => {
    const out: string[] = [];
    for (let j = i; j < lines.length && j < i + 30; j++) {
      let raw = lines[j]!;
      if (j === i) raw = raw.slice(raw.indexOf(open) + open.length);
      const closeAt = raw.indexOf(close);
      const cleaned = strip(closeAt >= 0 ? raw.slice(0, closeAt) : raw).trim();
      if (cleaned.startsWith('@') || (cleaned === '' && out.length > 0)) break; // tags, or the end of the first paragraph
      if (cleaned !== '') out.push(cleaned);
      if (closeAt >= 0) break;
    }
    return firstSentence(out.join(' '));
  };
  if (first.startsWith('/*')) return block('/*', '*/', (l) => l.replace(/^\s*\*+!?/, ''));
  if (first.startsWith('"""') || first.startsWith("'''")) return block(first.slice(0, 3), first.slice(0, 3), (l) => l);
  if (first.startsWith('<!--')) return block('<!--', '-->', (l) => l);
  if (/^#{1,6}\s/.test(first)) return firstSentence(first.replace(/^#+\s*/, '')); // a Markdown title
  for (const prefix of ['///', '//!', '//', '--', ';;', '#']) {
    if (!first.startsWith(prefix)) continue;
    const out: string[] = [];
    for (let j = i; j < lines.length && lines[j]!.trim().startsWith(prefix); j++) {
      const cleaned = lines[j]!.trim().slice(prefix.length).trim();
      if (cleaned === '' && out.length > 0) break;
      if (cleaned !== '') out.push(cleaned);
    }
    return firstSentence(out.join(' '));
  }
  return '';
}

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const match = /^(.+?[.!?])(\s|$)/.exec(flat);
  return match ? match[1]! : flat;
}

const EXPORT_PATTERNS: RegExp[] = [
  // JavaScript / TypeScript
  /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|class|const|let|var|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/gm,
  /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=/gm,
  // Python (top level, public)
  /^(?:async\s+)?def\s+([A-Za-z]\w*)\s*\(/gm,
  /^class\s+([A-Za-z]\w*)\s*[(:]/gm,
  // Go (exported)
  /^func\s+(?:\([^)]*\)\s*)?([A-Z]\w*)\s*[([]/gm,
  /^type\s+([A-Z]\w*)\s/gm,
  // Rust
  /^pub\s+(?:async\s+)?(?:fn|struct|enum|trait|mod|const|type|static)\s+([A-Za-z_]\w*)/gm,
  // Java, C#, Kotlin
  /^\s*public\s+(?:(?:static|final|abstract|sealed|partial)\s+)*(?:class|interface|enum|record|struct)\s+([A-Za-z_]\w*)/gm,
];

/** Exported (public) names in source order, deduplicated. */
export function exportedNames(text: string): string[] {
  const found: Array<{ index: number; name: string }> = [];
  for (const pattern of EXPORT_PATTERNS) {
    for (const match of text.matchAll(pattern)) found.push({ index: match.index ?? 0, name: match[1]! });
  }
  for (const match of text.matchAll(/^export\s*\{([^}]*)\}/gm)) {
    for (const part of match[1]!.split(',')) {
      const name = part.trim().split(/\s+as\s+/).pop()?.trim();
      if (name) found.push({ index: match.index ?? 0, name });
    }
  }
  if (/^export\s+default\s+(?!(?:async\s+)?(?:function|class)\s+[A-Za-z_$])/m.test(text)) found.push({ index: text.search(/^export\s+default/m), name: 'default' });
  found.sort((a, b) => a.index - b.index);
  return [...new Set(found.map((f) => f.name))];
}

/** package.json-like files: their description or name. */
function jsonSummary(text: string): string {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return '';
    const record = value as Record<string, unknown>;
    const parts = [record.name, record.description].filter((v): v is string => typeof v === 'string' && v.trim() !== '');
    return parts.join(': ');
  } catch {
    return '';
  }
}

/** The deterministic summary of a file's bytes (path-independent, so the cache key is the blob oid). */
export function deterministicSummary(bytes: Uint8Array): string {
  const text = decodeForSummary(bytes);
  if (text === null) return 'binary';
  const doc = leadingDoc(text) || (/^\s*[{[]/.test(text) ? jsonSummary(text) : '');
  const names = exportedNames(text);
  const exportsPart = names.length === 0 ? '' : `exports ${names.slice(0, MAX_EXPORTS).join(', ')}${names.length > MAX_EXPORTS ? `, +${names.length - MAX_EXPORTS} more` : ''}`;
  const docPart = clip(doc, exportsPart ? MAX_SUMMARY_CHARS - exportsPart.length - 2 : MAX_SUMMARY_CHARS);
  return [docPart, exportsPart].filter(Boolean).join('; ');
}

export const deterministicSummarizer: FileSummarizer = {
  id: 'deterministic-v1',
  async summarize(file) {
    return deterministicSummary(file.bytes);
  },
};

const MODEL_INPUT_CHARS = 24_000;

/**
 * Summaries written by a (cheap) model. Binary files get the deterministic answer; after a
 * provider failure the rest of this summarizer's life falls back to the deterministic summary
 * (an outage must not cost one failed request per file), and those summaries are not cached.
 */
export class ModelSummarizer implements FileSummarizer {
  readonly id: string;
  private failed = false;

  constructor(private readonly provider: Provider) {
    this.id = `model-${provider.name}-${provider.model ?? 'default'}`;
  }

  /** True once a provider failure made it fall back for good. */
  get fellBack(): boolean {
    return this.failed;
  }

  async summarize(file: FileToSummarize, signal?: AbortSignal): Promise<string> {
    const text = decodeForSummary(file.bytes);
    if (text === null) return 'binary';
    if (this.failed) throw new SummaryUnavailable();
    try {
      const response = await this.provider.complete({
        system:
          'You write one-line summaries of files for a code index. Answer with ONE line of at most 20 words: what the file is for and its main exported names. No preamble, no quotes, no Markdown.',
        messages: [{ role: 'user', content: `Path: ${file.path}\n\n${text.length > MODEL_INPUT_CHARS ? `${text.slice(0, MODEL_INPUT_CHARS)}\n[… cut]` : text}` }],
        tools: NO_TOOLS,
        maxOutputTokens: 100,
        ...(signal ? { signal } : {}),
      });
      return clip(response.text.split('\n').find((l) => l.trim() !== '') ?? '');
    } catch (error) {
      if (signal?.aborted) throw error;
      this.failed = true;
      throw new SummaryUnavailable();
    }
  }
}

/** Thrown by a summarizer that cannot answer now; the caller uses the deterministic summary, uncached. */
export class SummaryUnavailable extends Error {
  constructor() {
    super('summary unavailable');
    this.name = 'SummaryUnavailable';
  }
}

export interface SummaryCacheOptions {
  fs: GitFs;
  /** The repository's common git dir; the cache lives in <dir>/forge/summaries/. */
  gitdir: string;
  summarizer: FileSummarizer;
  readBlob: (oid: string) => Promise<Uint8Array>;
  /** Default true; false keeps the cache in memory only. */
  persist?: boolean;
}

/** Summaries by blob oid: in memory, backed by the JSON-lines file. */
export class SummaryCache {
  private loaded: Map<string, FileSummary> | null = null;
  /** The file ends in a torn line: the next append starts on a new line. */
  private tornTail = false;
  private readonly unsaved: Array<{ oid: string } & FileSummary> = [];
  /** How many files were summarized (not found in the cache) by this instance. */
  computed = 0;

  constructor(private readonly options: SummaryCacheOptions) {}

  get file(): string {
    const safe = this.options.summarizer.id.replace(/[^A-Za-z0-9._-]/g, '_');
    return joinPath(this.options.gitdir, 'forge', 'summaries', `${safe}.jsonl`);
  }

  /** Summaries for these blobs, computing (and caching) the missing ones. */
  async summaries(files: ReadonlyArray<{ path: string; oid: string }>, signal?: AbortSignal): Promise<Map<string, FileSummary>> {
    const cache = await this.load();
    const out = new Map<string, FileSummary>();
    for (const file of files) {
      let entry = cache.get(file.oid) ?? out.get(file.oid);
      if (entry === undefined) {
        const bytes = await this.options.readBlob(file.oid);
        this.computed++;
        try {
          entry = { size: bytes.length, summary: await this.options.summarizer.summarize({ path: file.path, bytes }, signal) };
          cache.set(file.oid, entry);
          this.unsaved.push({ oid: file.oid, ...entry });
        } catch (error) {
          if (!(error instanceof SummaryUnavailable)) throw error;
          entry = { size: bytes.length, summary: deterministicSummary(bytes) };
        }
      }
      out.set(file.oid, entry);
    }
    await this.flush();
    return out;
  }

  private async load(): Promise<Map<string, FileSummary>> {
    if (this.loaded) return this.loaded;
    const map = new Map<string, FileSummary>();
    if (this.options.persist !== false) {
      let text = '';
      try {
        text = await this.options.fs.promises.readFile(this.file, 'utf8');
      } catch (error) {
        if (errnoCode(error) !== 'ENOENT') throw error;
      }
      this.tornTail = text !== '' && !text.endsWith('\n');
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        try {
          const value = JSON.parse(line) as { oid?: unknown; size?: unknown; summary?: unknown };
          if (typeof value.oid === 'string' && typeof value.size === 'number' && typeof value.summary === 'string') map.set(value.oid, { size: value.size, summary: value.summary });
        } catch {
          // A torn line (a process died mid-append): ignore it; the file is summarized again.
        }
      }
    }
    this.loaded = map;
    return map;
  }

  private async flush(): Promise<void> {
    if (this.unsaved.length === 0 || this.options.persist === false) {
      this.unsaved.length = 0;
      return;
    }
    const lines = (this.tornTail ? '\n' : '') + this.unsaved.map((e) => `${JSON.stringify({ oid: e.oid, size: e.size, summary: e.summary })}\n`).join('');
    this.unsaved.length = 0;
    this.tornTail = false;
    const { promises } = this.options.fs;
    await mkdirp(this.options.fs, joinPath(this.options.gitdir, 'forge', 'summaries'));
    if (promises.appendFile) {
      await promises.appendFile(this.file, lines);
    } else {
      let existing = '';
      try {
        existing = await promises.readFile(this.file, 'utf8');
      } catch (error) {
        if (errnoCode(error) !== 'ENOENT') throw error;
      }
      await promises.writeFile(this.file, existing + lines);
    }
  }
}
