/**
 * Secret redaction: every session state passes through here before it is written as a git
 * object (turn commits, new sessions, rebases), so a token an agent saw (an environment dump,
 * a `.env` it read, a key pasted into a prompt) never reaches a commit. Each secret is replaced
 * by a marker naming the rule that found it, e.g. `[REDACTED:aws-access-key]`.
 *
 * Browser-safe: the built-in rules are plain regular expressions. A maintained rule set
 * (secretlint's recommended preset, src/session/node/secretlint-scanner.ts) is injected by the
 * Node adapter as another SecretScanner.
 */

/** One secret found in a text: [start, end) in UTF-16 units, and the rule's kebab-case name. */
export interface SecretMatch {
  rule: string;
  start: number;
  end: number;
}

/**
 * Finds secrets in many texts at once (a scanner may be slow to start: it is given up to
 * SCAN_SLICE_CHARS of texts per call). A text's matches must not depend on the other texts given with it.
 */
export interface SecretScanner {
  readonly name: string;
  scan(texts: readonly string[]): Promise<SecretMatch[][]>;
}

/** What the user configured: `forge.redact` (false turns it off) and extra patterns. */
export interface RedactionSettings {
  enabled: boolean;
  /** Regular expressions (JavaScript syntax); each match is redacted as `custom-pattern`. */
  patterns: readonly string[];
}

/** How many secrets each rule replaced. */
export interface RedactionCount {
  rule: string;
  count: number;
}

export const REDACTION_MARKER = /\[REDACTED:[a-z0-9-]+\]/g;

export function redactionMarker(rule: string): string {
  return `[REDACTED:${rule}]`;
}

/** A rule of the built-in set: a regex whose group `secret` (else the whole match) is the secret. */
interface PatternRule {
  rule: string;
  pattern: RegExp;
  /** Further check on the secret (e.g. its entropy). */
  accept?: (secret: string) => boolean;
}

/** Shannon entropy in bits per character. */
export function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

// Bounded name parts: an unbounded `[…]*` before and after the alternation backtracks
// quadratically inside a long run of name characters (a base64 blob in a tool result).
const SECRET_NAME = String.raw`[A-Za-z0-9_.-]{0,40}(?:secret|token|passw(?:or)?d|passwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth|credential|client[_-]?secret)[A-Za-z0-9_.-]{0,40}`;

/**
 * The built-in rules: the cloud keys secretlint's preset misses in short form, private key
 * blocks of any length, and high-entropy values assigned to secret-looking names (KEY=value,
 * "token": "value", password: value), which no pattern of a key format can catch.
 */
export const BUILTIN_RULES: readonly PatternRule[] = [
  { rule: 'aws-access-key', pattern: /\b(?<secret>(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b/g },
  { rule: 'private-key', pattern: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/g },
  { rule: 'github-token', pattern: /\b(?<secret>(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{50,255}))\b/g },
  { rule: 'openai-api-key', pattern: /\b(?<secret>sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,})\b/g },
  { rule: 'anthropic-api-key', pattern: /\b(?<secret>sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,})/g },
  { rule: 'slack-token', pattern: /\b(?<secret>xox[abposr]-[A-Za-z0-9-]{10,})\b/g },
  {
    rule: 'high-entropy-assignment',
    pattern: new RegExp(String.raw`(?<![A-Za-z0-9_.-])["']?${SECRET_NAME}["']?\s*(?::=|=|:)\s*["'\x60]?(?<secret>[A-Za-z0-9+/=_\-.~!@#$%^&*]{12,})`, 'gi'),
    // Random-looking values only: a name assigned a word (password = "example") is not a secret.
    accept: (secret) => entropy(secret) >= 3.5 && /[0-9]/.test(secret) && /[A-Za-z]/.test(secret) && !/^\[?REDACTED/.test(secret),
  },
];

function patternMatches(text: string, rules: readonly PatternRule[]): SecretMatch[] {
  const out: SecretMatch[] = [];
  for (const { rule, pattern, accept } of rules) {
    pattern.lastIndex = 0;
    for (const match of text.matchAll(pattern)) {
      const secret = match.groups?.['secret'] ?? match[0];
      if (secret === '' || (accept && !accept(secret))) continue;
      const start = match.index + (match.groups?.['secret'] !== undefined ? match[0].lastIndexOf(secret) : 0);
      out.push({ rule, start, end: start + secret.length });
    }
  }
  return out;
}

/** The built-in rules plus the user's patterns, as a scanner. */
export class PatternScanner implements SecretScanner {
  readonly name = 'forge-builtin';
  private readonly rules: PatternRule[];

  constructor(extraPatterns: readonly string[] = []) {
    this.rules = [...BUILTIN_RULES, ...extraPatterns.map((source) => ({ rule: 'custom-pattern', pattern: new RegExp(source, 'g') }))];
  }

  scan(texts: readonly string[]): Promise<SecretMatch[][]> {
    return Promise.resolve(texts.map((text) => patternMatches(text, this.rules)));
  }
}

/** Replaces each match (overlaps merged, the earliest rule named) with its marker. */
export function applyRedactions(text: string, matches: readonly SecretMatch[]): { text: string; counts: Map<string, number> } {
  const counts = new Map<string, number>();
  if (matches.length === 0) return { text, counts };
  const sorted = [...matches].sort((a, b) => a.start - b.start || b.end - a.end);
  let out = '';
  let at = 0;
  const merged: SecretMatch[] = [];
  for (const m of sorted) {
    if (m.end <= m.start) continue;
    const last = merged[merged.length - 1];
    if (last && m.start < last.end) last.end = Math.max(last.end, m.end);
    else merged.push({ ...m });
  }
  for (const m of merged) {
    out += text.slice(at, m.start) + redactionMarker(m.rule);
    at = m.end;
    counts.set(m.rule, (counts.get(m.rule) ?? 0) + 1);
  }
  return { text: out + text.slice(at), counts };
}

/**
 * Redacts many texts with every scanner; remembers texts found clean, so a long conversation
 * is not scanned again at every turn.
 */
export class Redactor {
  private readonly clean = new Set<string>();

  constructor(readonly scanners: readonly SecretScanner[]) {}

  async redactAll(texts: readonly string[]): Promise<{ texts: string[]; counts: Map<string, number> }> {
    const todo = [...new Set(texts.filter((t) => t.length >= 8 && !this.clean.has(t)))];
    const found = new Map<string, SecretMatch[]>(todo.map((t) => [t, []]));
    for (const scanner of this.scanners) {
      // A slice of the texts at a time: a 10,000-call turn's state is tens of megabytes of text,
      // which a scanner given all at once holds joined and indexed, its garbage outliving young GCs.
      for (const [from, to] of slices(todo, SCAN_SLICE_CHARS)) {
        const results = await scanner.scan(todo.slice(from, to));
        for (let i = from; i < to; i++) found.get(todo[i]!)!.push(...(results[i - from] ?? []));
      }
    }
    const counts = new Map<string, number>();
    const replaced = new Map<string, string>();
    for (const [text, matches] of found) {
      if (matches.length === 0) {
        this.clean.add(text);
        continue;
      }
      const result = applyRedactions(text, matches);
      replaced.set(text, result.text);
      this.clean.add(result.text);
      for (const [rule, n] of result.counts) counts.set(rule, (counts.get(rule) ?? 0) + n);
    }
    // A text repeated in the state is counted once per place it appears.
    const seen = new Map<string, number>();
    for (const t of texts) if (replaced.has(t)) seen.set(t, (seen.get(t) ?? 0) + 1);
    for (const [text, times] of seen) {
      if (times < 2) continue;
      for (const [rule, n] of applyRedactions(text, found.get(text)!).counts) counts.set(rule, (counts.get(rule) ?? 0) + n * (times - 1));
    }
    return { texts: texts.map((t) => replaced.get(t) ?? t), counts };
  }
}

/**
 * Texts given to a scanner per call, in characters (a longer text is given alone). secretlint on
 * 20 MB of a turn's texts: +13 MiB of RSS in 64 KiB slices, +31 in 1 MiB ones, about the same CPU time.
 */
export const SCAN_SLICE_CHARS = 1 << 16;

/** [from, to) ranges of `texts`, each of at most `limit` characters or one text. */
export function slices(texts: readonly string[], limit: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let from = 0;
  let chars = 0;
  for (let i = 0; i < texts.length; i++) {
    if (i > from && chars + texts[i]!.length > limit) {
      out.push([from, i]);
      from = i;
      chars = 0;
    }
    chars += texts[i]!.length;
  }
  if (from < texts.length) out.push([from, texts.length]);
  return out;
}

export function countsToList(counts: ReadonlyMap<string, number>): RedactionCount[] {
  return [...counts].map(([rule, count]) => ({ rule, count })).sort((a, b) => a.rule.localeCompare(b.rule));
}
