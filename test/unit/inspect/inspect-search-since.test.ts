/**
 * The page's search takes for `since` what `forge log --since` takes (one parser): "2 weeks ago",
 * "3.days.ago", ISO dates, @<unix seconds>. Sessions committed at known times on an in-memory
 * repository; a turn is found exactly when its commit is at or after the moment the CLI's parser
 * reads, for random relative and absolute dates.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { Repository, type GitFs } from '../../../src/git';
import { nodePlatform } from '../../../src/git/node/platform';
import { searchView } from '../../../src/inspect/review';
import { parseSince } from '../../../src/provenance';
import { SessionStore } from '../../../src/session';
import { makeMemRepo } from '../../helpers/memfs-repo';

const NOW = new Date('2026-11-27T12:00:00Z');
const DAY = 86400;
/** Each session's one turn, this many days before NOW. */
const AGES = { old: 40, month: 20, week: 6, fresh: 1 };

let repo: Repository;

async function found(since: string): Promise<string[]> {
  const sessions: string[] = [];
  for await (const hit of searchView(repo, { since }, NOW)) sessions.push(hit.session);
  return sessions.sort();
}

/** The sessions the CLI's reading of `since` selects, by their commit times. */
function expected(since: string): string[] {
  const t = parseSince(since, NOW);
  return Object.entries(AGES)
    .filter(([, days]) => NOW.getTime() / 1000 - days * DAY >= t)
    .map(([id]) => id)
    .sort();
}

beforeAll(async () => {
  const mem = await makeMemRepo({ files: { 'a.txt': 'a\n' } });
  repo = await Repository.open({ fs: mem.fs as unknown as GitFs, dir: mem.dir, platform: nodePlatform });
  for (const [id, days] of Object.entries(AGES)) {
    const at = new Date(NOW.getTime() - days * DAY * 1000);
    const session = await new SessionStore(repo, () => at).create({ id, base: 'main' });
    await session.recordUserMessage(`work of ${id}`);
    await session.commitTurn({ message: `turn of ${id}` });
  }
});

describe('the session search of the page, since', () => {
  it('takes the relative dates forge log --since takes (the API refused them before)', async () => {
    expect(await found('2 weeks ago')).toEqual(['fresh', 'week']);
    expect(await found('3.days.ago')).toEqual(['fresh']);
    expect(await found('1 month ago')).toEqual(['fresh', 'month', 'week']);
    expect(await found('2026-11-01')).toEqual(['fresh', 'month', 'week']);
    expect(await found(`@${NOW.getTime() / 1000 - 25 * DAY}`)).toEqual(['fresh', 'month', 'week']);
  });

  it('finds a turn exactly when the CLI parser puts its commit at or after the date', async () => {
    const units = ['second', 'minute', 'hour', 'day', 'week', 'month'] as const;
    const relative = fc.tuple(fc.integer({ min: 0, max: 60 }), fc.constantFrom(...units), fc.boolean()).map(([n, unit, plural]) => `${n} ${unit}${plural ? 's' : ''} ago`);
    const iso = fc.integer({ min: 0, max: 50 * DAY }).map((s) => new Date(NOW.getTime() - s * 1000).toISOString());
    await fc.assert(
      fc.asyncProperty(fc.oneof(relative, iso), async (since) => {
        expect(await found(since)).toEqual(expected(since));
      }),
      { numRuns: 40 },
    );
  });

  it('refuses what the CLI refuses, naming the field', () => {
    expect(() => searchView(repo, { since: 'last blue moon' }, NOW)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('since "last blue moon" is not a date') }));
  });
});
