/** forge session new (time only: git's counterpart is a ref write). */
export const name = 'session-new';

export function run(ctx) {
  const { check, measure, forge, gitOut, runs, scenario } = ctx;
  const sessionNew = measure('session new', runs, {
    forge: (i) => {
      const id = `rl-new-${i}`;
      const r = forge(['session', 'new', '--base', 'main', '--id', id, '--json']);
      const head = gitOut(['rev-parse', `refs/heads/forge/session/${id}`]).trim();
      const parent = gitOut(['rev-parse', `${head}^`]).trim();
      check('sessionNew', parent === scenario.main, `forge session new: forge/session/${id} is ${head}, whose parent is ${parent}, not main`);
      return r;
    },
  });
  return { sessionNew };
}

export function rows() {
  return [{ key: 'sessionNew', label: '`forge session new`', check: 'sessionNew', target: { text: '≤ 150 ms', met: (c) => c.forge <= 150 } }];
}

export function notes() {
  return ["- **session new**: `forge session new --base main --id <new id>`; checked: the session branch's first commit has `main` as parent. git has no counterpart (a branch is a ref write)."];
}
