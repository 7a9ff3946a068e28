/**
 * forge's rename similarity (src/branches/similarity.ts, used to flag the renames git's merge
 * would see) against git's own: generated source/destination pairs, git's `diff -M` score
 * (`R<score>`) must equal forge's, percent for percent.
 */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SCORE, similarity } from '../../src/branches/similarity';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { makeTempDir } from '../helpers/temp';

const pairArb = fc.record({
  lines: fc.array(fc.tuple(fc.nat(200), fc.nat(70)), { minLength: 5, maxLength: 60 }),
  keep: fc.double({ min: 0.45, max: 1, noNaN: true }),
  added: fc.nat(25),
  crlf: fc.boolean(),
  seed: fc.nat(1000),
});

describe('rename similarity', () => {
  it('scores pairs exactly as git diff -M does', () => {
    const pairs = fc.sample(pairArb, { seed: 7, numRuns: 40 }).map((p, i) => {
      const nl = p.crlf ? '\r\n' : '\n';
      const src = p.lines.map(([n, pad]) => `case ${i} line ${n} ${'='.repeat(pad)}${nl}`);
      let state = p.seed + 1;
      const rnd = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
      const dst = [...src.filter(() => rnd() < p.keep), ...Array.from({ length: p.added }, (_, k) => `case ${i} added ${k}${nl}`)];
      return { src: Buffer.from(src.join('')), dst: Buffer.from(dst.join('')) };
    });
    const dir = makeTempDir('similarity');
    git(dir, ['init', '-q', '.']);
    const add = (files: Array<[string, Buffer]>) => {
      for (const [path, bytes] of files) execFileSync('git', ['update-index', '--add', '--cacheinfo', `100644,${git(dir, ['hash-object', '-w', '--stdin'], { input: bytes }).stdout.trim()},${path}`], { cwd: dir, env: hermeticGitEnv() });
    };
    add(pairs.map((p, i) => [`src${i}.txt`, p.src]));
    const before = git(dir, ['write-tree']).stdout.trim();
    git(dir, ['rm', '-q', '--cached', ...pairs.map((_, i) => `src${i}.txt`)]);
    add(pairs.map((p, i) => [`dst${i}.txt`, p.dst]));
    const after = git(dir, ['write-tree']).stdout.trim();
    const out = git(dir, ['diff-tree', '-r', '-M1%', '--name-status', '-z', before, after]).stdout.split('\0');
    const gitScores = new Map<number, number>();
    for (let k = 0; k < out.length; k++) {
      if (out[k]!.startsWith('R')) {
        const from = Number(/src(\d+)/.exec(out[k + 1]!)![1]);
        const to = Number(/dst(\d+)/.exec(out[k + 2]!)![1]);
        expect(to).toBe(from);
        gitScores.set(from, Number(out[k]!.slice(1)));
        k += 2;
      }
    }
    expect(gitScores.size).toBeGreaterThan(30);
    for (const [i, score] of gitScores) {
      const p = pairs[i]!;
      expect([i, Math.floor((similarity(p.src, p.dst, undefined, undefined, 600) * 100) / MAX_SCORE)]).toEqual([i, score]);
    }
  });
});
