/**
 * The one way a session state becomes bytes for a git object: `encodeRedacted` redacts every
 * text the conversation and the tool records hold (messages, tool-call arguments and outputs,
 * clipboards, the undo summary), then encodes. Settings come from git config (`forge.redact`,
 * `forge.redactPattern`, read here so every writer honours them) and from the adapter that built
 * the store (.forge/config.json's `redact`, the secretlint scanner on Node).
 */
import { ForgeError } from '../errors';
import type { Repository } from '../git';
import { countsToList, PatternScanner, Redactor, type RedactionCount, type RedactionSettings, type SecretScanner } from './redaction';
import type { SessionState } from './state';
import { encodeState } from './state-codec';

export interface RedactionOptions {
  /** Scanners besides the built-in rules (e.g. secretlint's preset on Node). */
  scanners?: readonly SecretScanner[];
  /** Settings from a file (.forge/config.json); git config's forge.redact* come on top. */
  settings?: Partial<RedactionSettings>;
}

export interface RedactedState {
  state: SessionState;
  redactions: RedactionCount[];
}

/** Every string inside a JSON-like value, in a stable order, and a way to put new ones back. */
function collect(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) collect(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) collect(v, out);
}

function replace(value: unknown, next: () => string): unknown {
  if (typeof value === 'string') return next();
  if (Array.isArray(value)) return value.map((v) => replace(v, next));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replace(v, next)]));
  return value;
}

/** The parts of a state that hold free text (ids, paths, hashes and dates are left as they are). */
function textParts(state: SessionState): unknown {
  return {
    messages: state.messages.map((m) => ({ content: m.content, toolCalls: m.toolCalls?.map((c) => c.args) })),
    toolCalls: state.toolCalls.map((c) => ({ args: c.args, output: c.output, error: c.error?.message })),
    clipboards: { ...state.clipboards },
    undo: state.undo?.summary ?? null,
  };
}

function withTextParts(state: SessionState, parts: ReturnType<typeof textParts>): SessionState {
  const p = parts as {
    messages: Array<{ content: string; toolCalls?: unknown[] }>;
    toolCalls: Array<{ args: unknown; output: unknown; error?: string }>;
    clipboards: Record<string, string>;
    undo: string | null;
  };
  return {
    ...state,
    messages: state.messages.map((m, i) => ({
      ...m,
      content: p.messages[i]!.content,
      ...(m.toolCalls ? { toolCalls: m.toolCalls.map((c, j) => ({ ...c, args: p.messages[i]!.toolCalls![j] })) } : {}),
    })),
    toolCalls: state.toolCalls.map((c, i) => ({
      ...c,
      args: p.toolCalls[i]!.args,
      ...(c.output !== undefined ? { output: p.toolCalls[i]!.output } : {}),
      ...(c.error ? { error: { ...c.error, message: p.toolCalls[i]!.error! } } : {}),
    })),
    clipboards: p.clipboards,
    undo: state.undo ? { ...state.undo, summary: p.undo! } : null,
  };
}

export class StateRedaction {
  private redactor: Promise<Redactor | null> | null = null;

  constructor(
    private readonly repo: Repository,
    private readonly options: RedactionOptions = {},
  ) {}

  /** Settings in force: git config over the adapter's file settings over the defaults (on, no extra patterns). */
  async settings(): Promise<RedactionSettings> {
    const enabled = (await this.repo.config.getBool('forge.redact')) ?? this.options.settings?.enabled ?? true;
    const fromConfig = (await this.repo.config.getAll('forge.redactPattern')).filter((v): v is string => typeof v === 'string');
    return { enabled, patterns: [...(this.options.settings?.patterns ?? []), ...fromConfig] };
  }

  private load(): Promise<Redactor | null> {
    this.redactor ??= this.settings().then((settings) => {
      if (!settings.enabled) return null;
      for (const source of settings.patterns) {
        try {
          new RegExp(source, 'g');
        } catch (error) {
          throw new ForgeError('INVALID_ARGUMENT', `forge.redactPattern "${source}" is not a valid regular expression: ${(error as Error).message}. Nothing was written.`, {
            data: { pattern: source },
            hint: 'Fix or remove the pattern (git config --unset-all forge.redactPattern, or .forge/config.json "redact").',
          });
        }
      }
      return new Redactor([new PatternScanner(settings.patterns), ...(this.options.scanners ?? [])]);
    });
    return this.redactor;
  }

  /** The state with every secret replaced by its marker, and what was replaced. */
  async redact(state: SessionState): Promise<RedactedState> {
    const redactor = await this.load();
    if (redactor === null) return { state, redactions: [] };
    const parts = textParts(state);
    const texts: string[] = [];
    collect(parts, texts);
    const result = await redactor.redactAll(texts);
    if (result.counts.size === 0) return { state, redactions: [] };
    let i = 0;
    const next = withTextParts(state, replace(parts, () => result.texts[i++]!) as ReturnType<typeof textParts>);
    return { state: next, redactions: countsToList(result.counts) };
  }

  /** Redacts a free text (a commit message). */
  async redactText(text: string): Promise<{ text: string; redactions: RedactionCount[] }> {
    const redactor = await this.load();
    if (redactor === null) return { text, redactions: [] };
    const result = await redactor.redactAll([text]);
    return { text: result.texts[0]!, redactions: countsToList(result.counts) };
  }

  /** Encodes a state for a git object, redacted: the only encoder session writers use. */
  async encode(state: SessionState): Promise<{ bytes: Uint8Array; state: SessionState; redactions: RedactionCount[] }> {
    const redacted = await this.redact(state);
    return { bytes: encodeState(redacted.state), ...redacted };
  }

  /** What a committed state still holds (for `forge push`): scanned with redaction on, whatever the settings. */
  async findSecrets(state: SessionState): Promise<RedactionCount[]> {
    const settings = await this.settings();
    const redactor = new Redactor([new PatternScanner(settings.patterns), ...(this.options.scanners ?? [])]);
    const texts: string[] = [];
    collect(textParts(state), texts);
    return countsToList((await redactor.redactAll(texts)).counts);
  }
}

export function mergeCounts(...lists: ReadonlyArray<readonly RedactionCount[]>): RedactionCount[] {
  const counts = new Map<string, number>();
  for (const list of lists) for (const { rule, count } of list) counts.set(rule, (counts.get(rule) ?? 0) + count);
  return countsToList(counts);
}
