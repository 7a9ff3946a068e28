/**
 * git's own line merge as merge-ort does it (histogram diff, ZEALOUS level), for whole batches of
 * three-text cases: one bare repository built with fast-import, one `git merge-tree --write-tree
 * --stdin` run, one `git cat-file --batch` to read the merged file back. (`git merge-file` is no
 * oracle for merge-ort: it diffs with Myers and simplifies at the ZEALOUS_ALNUM level.)
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, hermeticGitEnv } from './git-cli';
import { makeTempDir } from './temp';

export interface GitMerge {
  clean: boolean;
  tree: string;
  /** Paths with conflict stages. */
  paths: Set<string>;
  /** Conflict message types (e.g. "CONFLICT (rename/delete)"). */
  types: string[];
}

/** Parses `git merge-tree --stdin` output (NUL-separated; see git-merge-tree(1)). */
export function parseMergeTreeStdin(output: string, count: number): GitMerge[] {
  const fields = output.split('\0');
  const merges: GitMerge[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    const status = fields[p++];
    const tree = fields[p++]!;
    const merge: GitMerge = { clean: status === '1', tree, paths: new Set(), types: [] };
    if (status !== '1' && status !== '0') throw new Error(`unexpected merge-tree status ${status} at merge ${i}`);
    if (!merge.clean) {
      for (; fields[p] !== ''; p++) merge.paths.add(fields[p]!.slice(fields[p]!.indexOf('\t') + 1));
      p++;
      while (fields[p] !== '') {
        const n = Number(fields[p++]);
        p += n;
        merge.types.push(fields[p++]!);
        p++; // the message
      }
    }
    p++;
    merges.push(merge);
  }
  return merges;
}

export interface TextCase {
  base: string;
  ours: string;
  theirs: string;
}

export interface TextMerge {
  clean: boolean;
  /** The merged file, with conflict markers labelled by the two commits' oids. */
  text: string;
  labels: { ours: string; theirs: string };
}

function commit(mark: number, parent: number | null, content: string): string {
  const data = Buffer.from(content, 'utf8');
  return (
    `commit refs/heads/c${mark}\nmark :${mark}\nauthor T <t@example.invalid> 1704067200 +0000\ncommitter T <t@example.invalid> 1704067200 +0000\ndata 1\nc\n` +
    (parent !== null ? `from :${parent}\n` : '') +
    `M 100644 inline f\ndata ${data.length}\n${content}\n\n`
  );
}

/** Merges every case's file `f` as `git merge-tree` (merge-ort) does. */
export function gitMergeTexts(cases: readonly TextCase[]): TextMerge[] {
  const dir = join(makeTempDir('git-merge-texts'), 'repo.git');
  git(makeTempDir('git-merge-texts-cwd'), ['init', '-q', '--bare', dir]);
  const stream = cases.map((c, i) => commit(3 * i + 1, null, c.base) + commit(3 * i + 2, 3 * i + 1, c.ours) + commit(3 * i + 3, 3 * i + 1, c.theirs)).join('') + 'done\n';
  const marksFile = join(dir, 'marks');
  const imported = spawnSync('git', ['fast-import', '--quiet', '--done', `--export-marks=${marksFile}`], { cwd: dir, env: hermeticGitEnv(), input: stream });
  if (imported.status !== 0) throw new Error(`fast-import failed: ${imported.stderr.toString()}`);
  const marks = new Map(readFileSync(marksFile, 'utf8').trim().split('\n').map((line) => [line.slice(1, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)] as const));
  const pairs = cases.map((_, i) => ({ ours: marks.get(String(3 * i + 2))!, theirs: marks.get(String(3 * i + 3))! }));
  const run = spawnSync('git', ['merge-tree', '--write-tree', '--stdin'], { cwd: dir, env: hermeticGitEnv(), input: pairs.map((p) => `${p.ours} ${p.theirs}\n`).join(''), maxBuffer: 1 << 30 });
  if (run.status !== 0 && run.status !== 1) throw new Error(`merge-tree failed: ${run.stderr.toString()}`);
  const merges = parseMergeTreeStdin(run.stdout.toString('utf8'), cases.length);
  const blobs = spawnSync('git', ['cat-file', '--batch'], { cwd: dir, env: hermeticGitEnv(), input: merges.map((m) => `${m.tree}:f\n`).join(''), maxBuffer: 1 << 30 });
  const out = blobs.stdout;
  const texts: string[] = [];
  let at = 0;
  for (let i = 0; i < cases.length; i++) {
    const headerEnd = out.indexOf(10, at);
    const header = out.subarray(at, headerEnd).toString('utf8');
    if (header.endsWith(' missing')) {
      texts.push('');
      at = headerEnd + 1;
      continue;
    }
    const size = Number(header.split(' ')[2]);
    texts.push(out.subarray(headerEnd + 1, headerEnd + 1 + size).toString('utf8'));
    at = headerEnd + 1 + size + 1;
  }
  return merges.map((m, i) => ({ clean: m.clean, text: texts[i]!, labels: pairs[i]! }));
}
