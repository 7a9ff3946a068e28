/** The context a model receives: file index and active files within the token budget (the truncation rule). */
import { describe, expect, it } from 'vitest';
import { buildContext, DEFAULT_INSTRUCTIONS, languageOf } from '../../../src/agent/context';
import { SummaryCache, deterministicSummarizer } from '../../../src/agent/summaries';
import { sha256Hex, DEFAULT_TOOLS_CONFIG } from '../../../src/tools';
import { MemoryVfs, type MemoryEntrySpec } from '../../helpers/memory-vfs';
import { asGitFs, type GitFs } from '../../../src/git';
import { createFsFromVolume, Volume } from 'memfs';

const numbered = (n: number, prefix = 'line') => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`).join('\n') + '\n';

async function setup(files: Record<string, MemoryEntrySpec>) {
  const vfs = await MemoryVfs.create(files);
  const summaries = new SummaryCache({
    fs: asGitFs(createFsFromVolume(new Volume())),
    gitdir: '/g',
    summarizer: deterministicSummarizer,
    readBlob: (oid) => vfs.readBlob(oid),
    persist: false,
  });
  const build = (activeFiles: string[], budgetTokens: number) =>
    buildContext({ view: vfs, activeFiles, summaries, toolsConfig: DEFAULT_TOOLS_CONFIG, budgetTokens, instructions: 'INSTRUCTIONS' });
  return { vfs, summaries, build };
}

const FILES: Record<string, MemoryEntrySpec> = {
  'src/a.js': '/** Alpha module. */\nexport const a = 1;\n',
  'src/b.js': numbered(100),
  'docs/guide.md': '# The guide\n\nText.\n',
  'img.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1]),
  'link': { symlink: 'src/a.js' },
  '.env': 'SECRET=1\n',
  'keys/server.pem': 'PRIVATE\n',
  '.forge/sessions/s.json': '{}\n',
};

describe('buildContext', () => {
  it('lists every visible file with size, language and summary when the budget allows, and says when no file is active', async () => {
    const { build } = await setup(FILES);
    const { system, report } = await build([], 10_000);
    expect(system.startsWith('INSTRUCTIONS\n\n# Repository files (5): path (size, language): summary\n')).toBe(true);
    expect(system).toContain('src/a.js (41 B, JavaScript): Alpha module.; exports a\n');
    expect(system).toContain('docs/guide.md (19 B, Markdown): The guide\n');
    expect(system).toContain('img.png (6 B, image): binary\n');
    expect(system).toContain('link (symlink)\n');
    expect(system).not.toMatch(/\.env|server\.pem|\.forge/);
    expect(system).toContain('# Active files\nNone.');
    expect(report.index).toEqual({ files: 5, listed: 5, form: 'summaries' });
    expect(report.tokens).toBeLessThanOrEqual(10_000);
  });

  it('includes active files whole, with their line count and file_hash, in the order of the active list', async () => {
    const { build } = await setup(FILES);
    const { system, report } = await build(['src/a.js', 'docs/guide.md'], 10_000);
    const hash = await sha256Hex(new TextEncoder().encode('/** Alpha module. */\nexport const a = 1;\n'));
    expect(system).toContain(`### src/a.js (2 lines, file_hash ${hash})\n\`\`\`\n/** Alpha module. */\nexport const a = 1;\n\`\`\`\n### docs/guide.md (3 lines`);
    expect(report.active).toEqual([
      { path: 'src/a.js', shown: 'full', lines: 2, shownLines: 2, hash },
      { path: 'docs/guide.md', shown: 'full', lines: 3, shownLines: 3, hash: expect.any(String) },
    ]);
  });

  it('fences content that holds backticks with a longer fence', async () => {
    const { build } = await setup({ 'README.md': 'Use ```js blocks\n' });
    const { system } = await build(['README.md'], 5000);
    expect(system).toContain('````\nUse ```js blocks\n````');
  });

  it('cuts the first active file that does not fit at a line boundary, says how to read the rest, and names the next ones', async () => {
    const { build } = await setup(FILES);
    const budget = 260;
    const { system, report } = await build(['src/b.js', 'src/a.js'], budget);
    const cut = report.active[0]!;
    expect(cut).toMatchObject({ path: 'src/b.js', shown: 'cut', lines: 100 });
    expect(cut.shownLines).toBeGreaterThan(10);
    expect(cut.shownLines).toBeLessThan(100);
    const next = cut.shownLines! + 1;
    expect(system).toContain(`line ${cut.shownLines}\n\`\`\`\n[… lines ${next}-100 of src/b.js not shown (context budget); read them with read_file start_line=${next}]`);
    expect(system).not.toContain(`line ${next}\n`);
    expect(report.active[1]).toEqual({ path: 'src/a.js', shown: 'omitted' });
    expect(system).toContain('### src/a.js: not shown (context budget); use read_file');
    // The index keeps its share: the whole index fits in a quarter of the budget here.
    expect(report.index.form).toBe('summaries');
    expect(report.tokens).toBeLessThanOrEqual(budget);
  });

  it('keeps at most a quarter of the budget for the index when active files need the rest', async () => {
    const many: Record<string, MemoryEntrySpec> = { 'big.txt': numbered(2000) };
    for (let i = 0; i < 40; i++) many[`lib/module-${String(i).padStart(2, '0')}.js`] = `/** Module number ${i} does something useful. */\nexport const m${i} = ${i};\n`;
    const { build } = await setup(many);
    const budget = 2000;
    const { report } = await build(['big.txt'], budget);
    expect(report.active[0]!.shown).toBe('cut');
    // 41 index lines with summaries do not fit in the quarter; 41 paths do.
    expect(report.index.form).toBe('paths');
    expect(report.tokens).toBeLessThanOrEqual(budget);
  });

  it('falls back to paths only, then to the first paths with "… and K more files", without computing summaries it cannot show', async () => {
    const many: Record<string, MemoryEntrySpec> = {};
    for (let i = 0; i < 300; i++) many[`pkg/dir-${String(i).padStart(3, '0')}/file.ts`] = `/** File ${i} of the package, with a long summary line to make the index heavy. */\nexport const v${i} = ${i};\n`;
    const { build, summaries } = await setup(many);

    const paths = await build([], 3500);
    expect(paths.report.index.form).toBe('paths');
    expect(paths.system).toContain('# Repository files (300, paths only: the full index does not fit the context budget)\npkg/dir-000/file.ts\npkg/dir-001/file.ts\n');
    expect(summaries.computed).toBe(300);

    const fresh = await setup(many);
    const cut = await fresh.build([], 800);
    expect(cut.report.index.form).toBe('cut');
    expect(cut.report.index.listed).toBeGreaterThan(20);
    expect(cut.report.index.listed).toBeLessThan(300);
    expect(cut.system).toContain(`\n… and ${300 - cut.report.index.listed} more files\n`);
    expect(cut.system).toContain('cut to the context budget; use list_files or search for the rest)\npkg/dir-000/file.ts\n');
    expect(cut.report.tokens).toBeLessThanOrEqual(800);
    expect(fresh.summaries.computed).toBe(0);
  });

  it('says when an active file no longer exists or is binary', async () => {
    const { build } = await setup(FILES);
    const { system, report } = await build(['gone.js', 'img.png'], 5000);
    expect(system).toContain('### gone.js: no longer exists (remove it with update_context)');
    expect(system).toContain('### img.png: binary file, 6 B, not shown');
    expect(report.active.map((a) => a.shown)).toEqual(['missing', 'binary']);
  });

  it('uses the default instructions when none are given', async () => {
    const vfs = await MemoryVfs.create({ 'a.txt': 'a\n' });
    const summaries = new SummaryCache({ fs: asGitFs(createFsFromVolume(new Volume())), gitdir: '/g', summarizer: deterministicSummarizer, readBlob: (oid) => vfs.readBlob(oid), persist: false });
    const { system } = await buildContext({ view: vfs, activeFiles: [], summaries, toolsConfig: DEFAULT_TOOLS_CONFIG });
    expect(system.startsWith(DEFAULT_INSTRUCTIONS)).toBe(true);
  });
});

describe('languageOf', () => {
  it('names languages by extension or file name', () => {
    expect(languageOf('src/a.ts')).toBe('TypeScript');
    expect(languageOf('Dockerfile')).toBe('Dockerfile');
    expect(languageOf('x/Makefile')).toBe('Makefile');
    expect(languageOf('data.parquet')).toBe('parquet');
    expect(languageOf('bin/run')).toBe('no extension');
  });
});
