/**
 * A fleet on one server: 8 worker processes, each with its own clone, run 5 scripted turns each
 * with `forge run --push`, in parallel; then one repository fetches every session and merges it
 * into main. 40 turns pushed, none lost, no corrupt object, each merge's tree equal to
 * `git merge-tree --write-tree`'s. (bench/remote-fleet.mjs runs the same, 32 × 20, for numbers.)
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module shared with the bench, without type declarations
import { runFleet } from '../../../bench/remote-fleet.mjs';
import { hermeticGitEnv } from '../../helpers/git-cli';
import { startWorld, type World } from './remote-harness';

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.server.close();
});

it('8 workers x 5 turns with --push, then fetch all and merge into main: 40 turns, 0 lost, 0 corrupt, merges equal to git merge-tree', { timeout: 600_000 }, async () => {
  const result = await runFleet({ workers: 8, turns: 5, root: world.root, serverRepo: world.serverRepo, url: world.server.url('server.git', 'alice'), env: hermeticGitEnv() });
  expect(result.failedWorkers).toEqual([]);
  expect(result.turnsOnServer).toBe(40);
  expect(result.lost).toEqual([]);
  expect(result.corrupt).toEqual([]);
  expect(result.fetchedSessions).toBe(8);
  expect(result.merges).toHaveLength(8);
  for (const merge of result.merges) {
    expect(merge.status).toMatch(/^(fast-forward|merged)$/);
    expect(merge.tree).toBe(merge.expected);
  }
  // Pushed after every turn: one receive-pack POST per turn, all by the authenticated user.
  const posts = world.server.requests.filter((r) => r.method === 'POST' && r.service === 'git-receive-pack');
  expect(posts).toHaveLength(40);
  expect(posts.every((r) => r.user === 'alice' && r.status === 200)).toBe(true);
});
