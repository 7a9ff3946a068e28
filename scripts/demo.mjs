// The main job on bundled example data: a session, one turn of tool calls, its commit, the log,
// and time travel, on a temporary copy of the example-app fixture. Uses the built `forge` CLI.
// Usage: npm run demo  (keeps nothing: the temporary repository is removed unless --keep)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildRepo } from '../fixtures-repos/build.mjs';
import { getFixture } from '../fixtures-repos/index.mjs';

const keep = process.argv.includes('--keep');
const forgeBin = resolve('dist/cli.js');
const root = mkdtempSync(join(tmpdir(), 'forge-demo-'));
const repoDir = join(root, 'example-app');
const git = (...args) => execFileSync('git', ['-C', repoDir, ...args], { encoding: 'utf8' });
const forge = (...args) => {
  console.log(`\n$ forge ${args.join(' ')}`);
  const out = execFileSync(process.execPath, [forgeBin, ...args, '--repo', repoDir], { encoding: 'utf8' });
  process.stdout.write(out);
  return out;
};

try {
  buildRepo(getFixture('example-app'), repoDir, { bare: false, runGit: (cwd, args, input) => execFileSync('git', args, { cwd, input, encoding: 'utf8' }) });
  const statusBefore = git('status', '--porcelain');
  console.log(`Example repository: ${repoDir} (branch main, ${git('rev-parse', '--short', 'HEAD').trim()})`);

  forge('session', 'new', '--id', 'demo', '--base', 'main');

  const calls = [
    { tool: 'read_file', args: { path: 'src/math.js' } },
    {
      tool: 'Edit',
      args: {
        path: 'src/math.js',
        old_snippet: '  // TODO: an empty list gives NaN; decide what it should return.\n  return sum(values) / values.length;',
        new_snippet: '  if (values.length === 0) return 0;\n  return sum(values) / values.length;',
      },
    },
    { tool: 'read_file', args: { path: 'test/math.test.js' } },
    {
      tool: 'Patch',
      args: {
        path: 'test/math.test.js',
        patches: [{ operation: 'append_eof', newText: "\ntest('average of an empty list is 0', () => {\n  assert.equal(average([]), 0);\n});\n" }],
      },
    },
    { tool: 'write_file', args: { path: 'CHANGELOG.md', content: '# Changelog\n\n- `average([])` returns 0 instead of NaN.\n' } },
  ];
  const callsFile = join(root, 'calls.json');
  writeFileSync(callsFile, JSON.stringify(calls, null, 2));
  forge('turn', '--session', 'demo', '--calls', callsFile, '--message', 'Make average([]) return 0 and test it');

  forge('log', 'demo');
  forge('show', 'forge/session/demo');
  console.log('\n# time travel: the code as of the session start, then as of turn 1');
  forge('cat', 'src/math.js', '--rev', 'forge/session/demo~1');
  forge('cat', 'src/math.js', '--rev', 'forge/session/demo');

  const statusAfter = git('status', '--porcelain');
  const fsck = execFileSync('git', ['-C', repoDir, 'fsck', '--strict'], { encoding: 'utf8' });
  console.log(`\nWorking tree untouched: ${statusBefore === statusAfter && statusAfter === '' ? 'yes' : 'NO'}; git fsck --strict: ${fsck.trim() === '' ? 'clean' : fsck}`);

  console.log("\n# the session's code, materialized and tested (the example's own `node --test`)");
  const workDir = join(root, 'session-files');
  forge('materialize', workDir, '--session', 'demo');
  const tests = execFileSync(process.execPath, ['--test'], { cwd: workDir, encoding: 'utf8' });
  console.log(tests.split('\n').filter((line) => /^# (pass|fail)/.test(line)).join('\n'));
} finally {
  if (keep) console.log(`\nKept ${root}`);
  else rmSync(root, { recursive: true, force: true });
}
