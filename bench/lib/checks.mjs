/**
 * Every comparison of a forge result with git's, by case: a failed check is printed at once,
 * listed in the report, and makes the bench exit 1 (after the other cases are measured).
 */
export function createChecks(prefix) {
  /** key -> { passed, failed: [message] } */
  const entries = new Map();
  function check(key, condition, message) {
    const entry = entries.get(key) ?? { passed: 0, failed: [] };
    entries.set(key, entry);
    if (condition) entry.passed++;
    else {
      entry.failed.push(message);
      if (entry.failed.indexOf(message) === entry.failed.length - 1) console.error(`\n${prefix}: CHECK FAILED [${key}]: ${message}\n`);
    }
    return condition;
  }
  const failed = () => [...entries.entries()].filter(([, c]) => c.failed.length > 0);
  const total = () => [...entries.values()].reduce((n, c) => n + c.passed + c.failed.length, 0);
  return { entries, check, failed, total };
}

/** [message, count] in first-seen order. */
export const distinct = (messages) => [...messages.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map())];

export function firstDifference(a, b) {
  const x = Buffer.isBuffer(a) ? a.toString('utf8') : a;
  const y = Buffer.isBuffer(b) ? b.toString('utf8') : b;
  const xl = x.split('\n');
  const yl = y.split('\n');
  for (let i = 0; i < Math.max(xl.length, yl.length); i++) {
    if (xl[i] !== yl[i]) return `line ${i + 1}: forge ${JSON.stringify(xl[i] ?? '<end>')} vs git ${JSON.stringify(yl[i] ?? '<end>')} (forge ${xl.length} lines, git ${yl.length})`;
  }
  return 'no line differs (byte-level difference)';
}

/** A --stat difference: how many lines differ, the first, and both summary lines. */
export function statDifference(forge, git) {
  const f = forge.trimEnd().split('\n');
  const g = git.trimEnd().split('\n');
  const differing = f.filter((line, i) => line !== g[i]).length + Math.max(0, g.length - f.length);
  return `${differing} of ${g.length} lines differ; first: ${firstDifference(forge, git)}; summary: forge ${JSON.stringify(f.at(-1))} vs git ${JSON.stringify(g.at(-1))}`;
}
