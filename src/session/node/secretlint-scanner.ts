/**
 * secretlint's recommended preset (a maintained rule set: cloud keys, tokens, private keys,
 * connection strings) as a SecretScanner. A Node adapter: @secretlint/core imports node:path.
 * Loaded on first use (the preset costs ~30 ms to load), and run on the texts of a call joined
 * (the Redactor gives up to 64 KiB of texts per call), as one lintSource call costs a few
 * milliseconds however short the text.
 */
import type { SecretMatch, SecretScanner } from '../redaction';

/** Between two joined texts: no rule matches across a blank line and this sign. */
const SEPARATOR = '\n\n\u241E\n\n';

/** AWSAccessKeyID -> aws-access-key-id, GITHUB_TOKEN -> github-token. */
export function ruleName(messageId: string): string {
  return messageId
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .replace(/[_\s]+/g, '-')
    .toLowerCase();
}

type Lint = (texts: string) => Promise<Array<{ messageId: string; range: readonly [number, number] }>>;

async function loadLint(): Promise<Lint> {
  const [{ lintSource }, { creator }] = await Promise.all([import('@secretlint/core'), import('@secretlint/secretlint-rule-preset-recommend')]);
  return async (content) => {
    const result = await lintSource({
      source: { filePath: '/forge-session-state.txt', content, contentType: 'text' },
      options: { config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: creator }] }, maskSecrets: false },
    });
    return result.messages.map((m) => ({ messageId: m.messageId, range: m.range }));
  };
}

export class SecretlintScanner implements SecretScanner {
  readonly name = 'secretlint-preset-recommend';
  private lint: Promise<Lint> | null = null;

  async scan(texts: readonly string[]): Promise<SecretMatch[][]> {
    const out: SecretMatch[][] = texts.map(() => []);
    if (texts.length === 0) return out;
    this.lint ??= loadLint();
    const lint = await this.lint;
    const starts: number[] = [];
    let at = 0;
    for (const text of texts) {
      starts.push(at);
      at += text.length + SEPARATOR.length;
    }
    for (const { messageId, range } of await lint(texts.join(SEPARATOR))) {
      // The text the match starts in (binary search over the start offsets).
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= range[0]) lo = mid;
        else hi = mid - 1;
      }
      const start = range[0] - starts[lo]!;
      const end = Math.min(range[1] - starts[lo]!, texts[lo]!.length);
      if (start >= 0 && end > start) out[lo]!.push({ rule: ruleName(messageId), start, end });
    }
    return out;
  }
}
