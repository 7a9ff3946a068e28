/** File summaries: the deterministic summary, and the cache by blob oid (memory and disk). */
import { createFsFromVolume, Volume } from 'memfs';
import { describe, expect, it } from 'vitest';
import { deterministicSummary, exportedNames, leadingDoc, ModelSummarizer, SummaryCache, type FileSummarizer } from '../../../src/agent/summaries';
import type { ChatRequest, ChatResponse, Provider } from '../../../src/agent/providers';
import { asGitFs, type GitFs } from '../../../src/git';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('deterministic summaries', () => {
  it.each([
    ['a JSDoc block', '/**\n * Sum of a list of numbers. More text.\n * @param values the numbers\n */\nexport function sum(values) {}\n', 'Sum of a list of numbers.'],
    ['line comments after a shebang', '#!/usr/bin/env node\n// Builds the thing\n// in two steps.\nmain();\n', 'Builds the thing in two steps.'],
    ['a Python docstring', '"""Parse config files.\n\nDetails.\n"""\nimport os\n', 'Parse config files.'],
    ['a one-line block comment', '/* Tiny helper */\nconst a = 1;\n', 'Tiny helper'],
    ['a Markdown title', '\n# example-app\n\nA tiny calculator.\n', 'example-app'],
    ['an HTML comment', '<!-- Landing page. -->\n<html></html>\n', 'Landing page.'],
    ['nothing', 'const a = 1;\n', ''],
  ])('reads the leading doc of %s', (_label, text, doc) => {
    expect(leadingDoc(text)).toBe(doc);
  });

  it('lists exported names across languages, in source order', () => {
    expect(exportedNames('export function sum() {}\nexport const PI = 3;\nexport default class Thing {}\nexport { a, b as c };\nexport interface Shape {}\n')).toEqual(['sum', 'PI', 'Thing', 'a', 'c', 'Shape']);
    expect(exportedNames('def parse(x):\n    pass\n\ndef _private():\n    pass\nclass Loader:\n    def inner(self): pass\n')).toEqual(['parse', 'Loader']);
    expect(exportedNames('func Open(path string) error {}\nfunc helper() {}\ntype Store struct{}\n')).toEqual(['Open', 'Store']);
    expect(exportedNames('pub fn run() {}\nfn hidden() {}\npub struct Config;\n')).toEqual(['run', 'Config']);
    expect(exportedNames('export default {\n  a: 1,\n};\n')).toEqual(['default']);
  });

  it('joins the doc and the exports, describes binaries, and reads package.json', () => {
    expect(deterministicSummary(bytes('/** Sum of a list of numbers. */\nexport function sum(v) {}\nexport function average(v) {}\n'))).toBe('Sum of a list of numbers.; exports sum, average');
    expect(deterministicSummary(new Uint8Array([0x89, 0x50, 0x00, 0xff]))).toBe('binary');
    expect(deterministicSummary(new Uint8Array([0x63, 0x61, 0x66, 0xe9]))).toBe('binary');
    expect(deterministicSummary(bytes('{"name": "example-app", "version": "1.0.0"}\n'))).toBe('example-app');
    expect(deterministicSummary(bytes(''))).toBe('');
  });

  it('keeps summaries short', () => {
    const names = Array.from({ length: 30 }, (_, i) => `export const name${i} = ${i};`).join('\n');
    const summary = deterministicSummary(bytes(`// ${'very long words '.repeat(40)}\n${names}\n`));
    expect(summary.length).toBeLessThanOrEqual(160);
    expect(summary).toMatch(/exports name0, .*, \+22 more$/);
  });
});

function memFs(): GitFs {
  return asGitFs(createFsFromVolume(new Volume()));
}

function countingSummarizer(id = 'counting'): FileSummarizer & { calls: string[] } {
  const calls: string[] = [];
  return {
    id,
    calls,
    async summarize(file) {
      calls.push(file.path);
      return `summary of ${new TextDecoder().decode(file.bytes).trim()}`;
    },
  };
}

const blobs: Record<string, string> = { oid1: 'one', oid2: 'two', oid3: 'three' };
const readBlob = async (oid: string) => bytes(blobs[oid]!);

describe('SummaryCache', () => {
  it('summarizes each blob once, whatever its path, and persists across instances', async () => {
    const fs = memFs();
    const summarizer = countingSummarizer();
    const cache = new SummaryCache({ fs, gitdir: '/repo/.git', summarizer, readBlob });
    const first = await cache.summaries([
      { path: 'a.txt', oid: 'oid1' },
      { path: 'b.txt', oid: 'oid2' },
      { path: 'copy-of-a.txt', oid: 'oid1' },
    ]);
    expect(first.get('oid1')).toEqual({ size: 3, summary: 'summary of one' });
    expect(summarizer.calls).toEqual(['a.txt', 'b.txt']);
    await cache.summaries([{ path: 'renamed.txt', oid: 'oid2' }]);
    expect(summarizer.calls).toHaveLength(2);

    const text = await fs.promises.readFile('/repo/.git/forge/summaries/counting.jsonl', 'utf8');
    expect(text.trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      { oid: 'oid1', size: 3, summary: 'summary of one' },
      { oid: 'oid2', size: 3, summary: 'summary of two' },
    ]);
    const again = countingSummarizer();
    const fresh = new SummaryCache({ fs, gitdir: '/repo/.git', summarizer: again, readBlob });
    expect((await fresh.summaries([{ path: 'a.txt', oid: 'oid1' }, { path: 'c.txt', oid: 'oid3' }])).get('oid1')!.summary).toBe('summary of one');
    expect(again.calls).toEqual(['c.txt']);
    expect(fresh.computed).toBe(1);
  });

  it('keeps summarizers apart and ignores a torn last line', async () => {
    const fs = memFs();
    await fs.promises.mkdir('/g/forge/summaries', { recursive: true });
    await fs.promises.writeFile('/g/forge/summaries/counting.jsonl', '{"oid":"oid1","size":3,"summary":"cached one"}\n{"oid":"oid2","si');
    const summarizer = countingSummarizer();
    const cache = new SummaryCache({ fs, gitdir: '/g', summarizer, readBlob });
    const out = await cache.summaries([{ path: 'a', oid: 'oid1' }, { path: 'b', oid: 'oid2' }]);
    expect(out.get('oid1')!.summary).toBe('cached one');
    expect(out.get('oid2')!.summary).toBe('summary of two');
    expect(summarizer.calls).toEqual(['b']);
    const lines = (await fs.promises.readFile('/g/forge/summaries/counting.jsonl', 'utf8')).split('\n');
    expect(JSON.parse(lines[2]!)).toEqual({ oid: 'oid2', size: 3, summary: 'summary of two' });

    const other = countingSummarizer('other/model:x');
    await new SummaryCache({ fs, gitdir: '/g', summarizer: other, readBlob }).summaries([{ path: 'a', oid: 'oid1' }]);
    expect(other.calls).toEqual(['a']);
    expect(await fs.promises.readdir('/g/forge/summaries')).toEqual(['counting.jsonl', 'other_model_x.jsonl']);
  });

  it('writes nothing with persist: false', async () => {
    const fs = memFs();
    await new SummaryCache({ fs, gitdir: '/g', summarizer: countingSummarizer(), readBlob, persist: false }).summaries([{ path: 'a', oid: 'oid1' }]);
    await expect(fs.promises.readdir('/g')).rejects.toThrow();
  });
});

class FakeProvider implements Provider {
  readonly name = 'fake';
  readonly model = 'cheap';
  requests: ChatRequest[] = [];
  constructor(private readonly answer: (n: number) => string | Error) {}
  async complete(request: ChatRequest): Promise<ChatResponse> {
    this.requests.push(request);
    const answer = this.answer(this.requests.length);
    if (answer instanceof Error) throw answer;
    return { text: answer, toolCalls: [], finish: 'end_turn', usage: { inputTokens: 1, outputTokens: 1 } };
  }
}

describe('ModelSummarizer', () => {
  it('asks the model for one line per text file, without tools, and caches under its own id', async () => {
    const provider = new FakeProvider(() => '\nAdds numbers.\nsecond line');
    const fs = memFs();
    const cache = new SummaryCache({ fs, gitdir: '/g', summarizer: new ModelSummarizer(provider), readBlob });
    const out = await cache.summaries([{ path: 'src/a.js', oid: 'oid1' }]);
    expect(out.get('oid1')!.summary).toBe('Adds numbers.');
    expect(provider.requests[0]!.messages[0]!.content).toBe('Path: src/a.js\n\none');
    expect(provider.requests[0]!.tools).toEqual({ openai: [], anthropic: [] });
    expect(await fs.promises.readdir('/g/forge/summaries')).toEqual(['model-fake-cheap.jsonl']);
  });

  it('falls back to the deterministic summary, uncached, after the first failure, and stops asking', async () => {
    const provider = new FakeProvider(() => new Error('down'));
    const summarizer = new ModelSummarizer(provider);
    const cache = new SummaryCache({ fs: memFs(), gitdir: '/g', summarizer, readBlob });
    const out = await cache.summaries([{ path: 'a', oid: 'oid1' }, { path: 'b', oid: 'oid2' }]);
    expect(out.get('oid1')).toEqual({ size: 3, summary: '' });
    expect(provider.requests).toHaveLength(1);
    expect(summarizer.fellBack).toBe(true);
    await cache.summaries([{ path: 'a', oid: 'oid1' }]);
    expect(cache.computed).toBe(3);
  });

  it('does not send binary files to the model', async () => {
    const provider = new FakeProvider(() => 'x');
    expect(await new ModelSummarizer(provider).summarize({ path: 'a.png', bytes: new Uint8Array([0, 1, 2]) })).toBe('binary');
    expect(provider.requests).toHaveLength(0);
  });
});
