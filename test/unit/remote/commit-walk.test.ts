import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { divergence, isAncestorOf, leftRight, type CommitInfo } from '../../../src/remote/commit-walk';

/** A random DAG: commit i's parents are earlier commits; times increase with i (no skew) or are random (skew). */
const dag = fc.integer({ min: 1, max: 40 }).chain((n) =>
  fc.tuple(
    fc.array(fc.array(fc.nat(), { maxLength: 2 }), { minLength: n, maxLength: n }),
    fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: n, maxLength: n }),
    fc.boolean(),
  ),
);

function build([parentPicks, times, skew]: [number[][], number[], boolean | 'ties']) {
  const commits = new Map<string, CommitInfo>();
  parentPicks.forEach((picks, i) => {
    const parents = i === 0 ? [] : [...new Set(picks.map((p) => `c${p % i}`))];
    commits.set(`c${i}`, { parents, time: skew === 'ties' ? Math.floor(i / 4) : skew ? times[i]! : i * 10 });
  });
  const reach = (oid: string, seen = new Set<string>()) => {
    if (seen.has(oid)) return seen;
    seen.add(oid);
    for (const p of commits.get(oid)!.parents) reach(p, seen);
    return seen;
  };
  return { load: async (oid: string) => commits.get(oid)!, reach, n: parentPicks.length };
}

/** leftRight and isAncestorOf between commits a and b of graph g equal plain reachability. */
async function expectExactReachability(g: Parameters<typeof build>[0], a: number, b: number) {
  const { load, reach, n } = build(g);
  const l = `c${a % n}`;
  const r = `c${b % n}`;
  const got = await leftRight(load, [l], [r]);
  const L = reach(l);
  const R = reach(r);
  expect(new Set(got.left)).toEqual(new Set([...L].filter((x) => !R.has(x))));
  expect(new Set(got.right)).toEqual(new Set([...R].filter((x) => !L.has(x))));
  expect(await isAncestorOf(load, r, l)).toBe(L.has(r));
  return { load, l, r, got };
}

describe('leftRight', () => {
  it('without clock skew, equals reachability: left = reach(L) - reach(R), right = reach(R) - reach(L)', async () => {
    await fc.assert(
      fc.asyncProperty(dag.map(([p, t]) => [p, t, false] as [number[][], number[], boolean]), fc.nat(), fc.nat(), async (g, a, b) => {
        const { load, l, r, got } = await expectExactReachability(g, a, b);
        const d = await divergence(load, l, r);
        expect([d.ahead, d.behind]).toEqual([got.left.length, got.right.length]);
      }),
    );
  });

  it("commits made in the same second (a fast agent's turns) still give exact reachability: a turn is a fast-forward of the one before", async () => {
    // A linear history in one second: the ancestor test the push makes before every turn's push.
    const chain = new Map<string, CommitInfo>(Array.from({ length: 8 }, (_, i) => [`c${i}`, { parents: i === 0 ? [] : [`c${i - 1}`], time: 1_700_000_000 }]));
    const loadChain = async (oid: string) => chain.get(oid)!;
    for (let i = 0; i < 7; i++) expect(await isAncestorOf(loadChain, `c${i}`, `c${i + 1}`)).toBe(true);
    expect(await divergence(loadChain, 'c7', 'c6')).toEqual({ ahead: 1, behind: 0, state: 'ahead' });
    // Found by a CI run: the right side's only way to c0 goes through commits the walk never
    // visited, below a commit that became common late; "common" must be carried through them.
    const found: [number[][], number[], 'ties'] = [[[], [0], [1207959537], [374536874], [], [], [], [0, 684300353], [735290887], [], [], [], [], [], [], []], new Array(16).fill(0), 'ties'];
    await expectExactReachability(found, 515523923, 859729303);
    await fc.assert(
      fc.asyncProperty(dag.map(([p, t]) => [p, t, 'ties'] as [number[][], number[], 'ties']), fc.nat(), fc.nat(), async (g, a, b) => {
        await expectExactReachability(g, a, b);
      }),
    );
  });

  it('with clock skew, never misses a commit the other side lacks (a push may send more, never less)', async () => {
    await fc.assert(
      fc.asyncProperty(dag, fc.nat(), fc.nat(), async (g, a, b) => {
        const { load, reach, n } = build(g);
        const l = `c${a % n}`;
        const r = `c${b % n}`;
        const got = new Set((await leftRight(load, [l], [r])).left);
        const R = reach(r);
        for (const x of reach(l)) if (!R.has(x)) expect(got.has(x)).toBe(true);
        for (const x of got) expect(reach(l).has(x)).toBe(true);
      }),
    );
  });
});
