// Builds dist/ once before the tests, so CLI tests never run a stale build of src/. Then says, in
// one line, which Chromium tests are skipped on a machine without it (or fails the run when
// FORGE_REQUIRE_BROWSER=1 asks for them, as .ci/run does).
import { execFileSync } from 'node:child_process';
import { chromiumSkipNotice } from './browser/chromium.mjs';

export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const notice = chromiumSkipNotice();
  if (notice?.fail) throw new Error(notice.line);
  if (notice) process.stderr.write(`${notice.line}\n`);
}
