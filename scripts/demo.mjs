// The main job on bundled example data: a headless agent run on a temporary copy of the
// example-app fixture, with the built-in scripted provider (no network, no key):
//
//   forge run --repo <copy> --script examples/fix-average/script.json --approve all --id demo
//
// The agent runs the tests (run_command), adds a failing test (Patch), fixes the code (Edit),
// runs the tests again, and adds a CHANGELOG entry: two turns, two commits on
// forge/session/demo. Then the log, time travel, and the checks: the working tree is untouched,
// `git fsck --strict` is clean, and the example's own tests pass on the session's files.
// Usage: npm run demo  (the temporary repository is removed unless --keep). Exits 1 if a check fails.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildRepo } from '../fixtures-repos/build.mjs';
import { getFixture } from '../fixtures-repos/index.mjs';

const keep = process.argv.includes('--keep');
const forgeBin = resolve('dist/cli.js');
const script = resolve('examples/fix-average/script.json');
const root = mkdtempSync(join(tmpdir(), 'forge-demo-'));
const repoDir = join(root, 'example-app');
const git = (...args) => execFileSync('git', ['-C', repoDir, ...args], { encoding: 'utf8' });
const forge = (args, { show = true } = {}) => {
  console.log(`\n$ forge ${args.join(' ')}`);
  const out = execFileSync(process.execPath, [forgeBin, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (show) process.stdout.write(out);
  return out;
};

let failed = false;
const check = (label, ok, detail = '') => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}${detail ? `: ${detail}` : ''}`);
  if (!ok) failed = true;
};

try {
  buildRepo(getFixture('example-app'), repoDir, { bare: false, runGit: (cwd, args, input) => execFileSync('git', args, { cwd, input, encoding: 'utf8' }) });
  const statusBefore = git('status', '--porcelain');
  console.log(`Example repository: ${repoDir} (branch main, ${git('rev-parse', '--short', 'HEAD').trim()})`);

  forge(['run', '--repo', repoDir, '--script', script, '--approve', 'all', '--id', 'demo']);
  forge(['log', 'demo', '--repo', repoDir]);

  console.log('\n# time travel: src/math.js as of the session start, then as of turn 1');
  forge(['cat', 'src/math.js', '--rev', 'forge/session/demo~2', '--repo', repoDir]);
  forge(['cat', 'src/math.js', '--rev', 'forge/session/demo~1', '--repo', repoDir]);

  console.log("\n# the session's files, materialized and tested with the example's own `node --test`");
  const workDir = join(root, 'session-files');
  forge(['materialize', workDir, '--session', 'demo', '--repo', repoDir]);
  const tests = execFileSync(process.execPath, ['--test'], { cwd: workDir, encoding: 'utf8' });
  const summary = tests.split('\n').filter((line) => /^# (tests|pass|fail) /.test(line));
  console.log(summary.join('\n'));

  console.log('\n# checks');
  const commits = git('rev-list', '--count', 'main..forge/session/demo').trim();
  check('one commit per turn (plus the session start)', commits === '3', `${commits} commits on forge/session/demo`);
  const statusAfter = git('status', '--porcelain');
  check('working tree and index untouched', statusBefore === '' && statusAfter === '');
  const fsck = execFileSync('git', ['-C', repoDir, 'fsck', '--strict', '--no-dangling'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  check('git fsck --strict clean', fsck.trim() === '', fsck.trim());
  check("the example's tests pass on the session's files", summary.includes('# pass 4') && summary.includes('# fail 0'));
} catch (error) {
  failed = true;
  console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  if (keep) console.log(`\nKept ${root}`);
  else rmSync(root, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
console.log(keep ? `\n# review the sessions in a browser\nnode ${forgeBin} inspect --repo ${repoDir} --open` : `\n# to review the sessions in a browser: npm run demo -- --keep, then the printed command:\n# node ${forgeBin} inspect --repo <the kept repository> --open`);
