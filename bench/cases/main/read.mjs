/** Reading one file: whole `forge cat` process, in-process cold open + read, and warm reads by path vs `git cat-file`. */
import { median, sha1 } from '../../bench-kit.mjs';

export const name = 'read';

export function run(ctx) {
  const { check, measure, forgeCli, gitProc, inproc, opts, gitdir, picks, blobs } = ctx;
  const { target, siblings } = picks;
  const targetBytes = blobs.get(target.oid);
  const cases = {};
  cases.readProcess = measure('open + read one file (process)', opts.runs, {
    forge: () => {
      const r = forgeCli(['cat', target.path, '--repo', gitdir, '--rev', 'main']);
      check(r.stdout.equals(targetBytes), 'forge cat output differs from the blob');
      return r;
    },
    git: () => {
      const r = gitProc(['cat-file', 'blob', `main:${target.path}`], 'buffer');
      check(r.stdout.equals(targetBytes), 'git cat-file output differs');
      return r;
    },
  });
  cases.readInproc = measure('open + read one file (in-process)', opts.runs, {
    withNode: false,
    forge: () => {
      const r = inproc(['read-cold', gitdir, target.path]);
      check(r.sha1 === sha1(targetBytes), 'in-process cold read returned other bytes');
      return { ms: r.ms, rssKiB: r.maxRSS };
    },
    git: () => gitProc(['cat-file', 'blob', `main:${target.path}`], 'buffer'),
  });
  const warmArgs = [gitdir, String(opts.warmIterations), target.path, ...siblings.map((s) => s.path)];
  const expectedDigests = Object.fromEntries([target, ...siblings].map((f) => [f.path, sha1(blobs.get(f.oid))]));
  const warm = measure('warm read by path', opts.runs, {
    withNode: false,
    forge: () => {
      const r = inproc(['read-warm', ...warmArgs]);
      check(JSON.stringify(r.digests) === JSON.stringify(expectedDigests), 'warm reads returned other bytes');
      return { ms: r.ms, rotatingMs: r.rotatingMs, rssKiB: r.maxRSS };
    },
    git: () => {
      const r = inproc(['git-warm', ...warmArgs]);
      check(JSON.stringify(r.digests) === JSON.stringify(expectedDigests), 'git cat-file --batch returned other bytes');
      return { ms: r.ms, rotatingMs: r.rotatingMs, rssKiB: r.gitRSS };
    },
  });
  cases.warmSame = warm;
  cases.warmRotating = { ...warm, forge: median(warm.results.forge.map((r) => r.rotatingMs)), git: median(warm.results.git.map((r) => r.rotatingMs)) };
  return cases;
}

export function rows({ picks }) {
  return [
    { key: 'readProcess', label: 'open + read one file, whole process: `forge cat` vs `git cat-file blob`' },
    { key: 'readInproc', label: 'open + read one file, in-process (cold: new Repository) vs `git cat-file blob` process' },
    { key: 'warmSame', label: 'read one file by path, warm (same path) vs `git cat-file --batch`', target: { text: '< 1 ms', met: (c) => c.forge < 1 } },
    { key: 'warmRotating', label: `read by path, warm (${picks.siblings.length + 1} files of one directory in turn) vs \`git cat-file --batch\``, target: { text: '< 1 ms', met: (c) => c.forge < 1 } },
  ];
}

export function notes({ opts, picks }) {
  const int = (n) => n.toLocaleString('en-US');
  return [
    '- **open + read one file, whole process**: `node dist/cli.js cat <path> --repo R --rev main` against `git --git-dir=R cat-file blob main:<path>`; both outputs are compared with the blob.',
    "- **open + read one file, in-process**: a fresh `node bench/inproc.mjs` process times `Repository.open` + `CommitVfs.open(repo, 'main')` + `readFile(path)` (loading `dist/index.js` excluded); git: the same `git cat-file blob` process as above.",
    `- **read by path, warm**: one process opens \`CommitVfs\` on \`main\` and reads every path once, then times ${int(opts.warmIterations)} reads of the same path (median), then ${int(opts.warmIterations)} reads cycling over the file and ${picks.siblings.length} others of its directory. git: ONE long-lived \`git cat-file --batch\`; a read is writing \`main:<path>\` and waiting for the complete response, timed the same way. git's RSS is the cat-file process's VmHWM.`,
  ];
}
