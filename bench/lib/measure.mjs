/**
 * One case of whole processes: a discarded warm-up, then `runs` measured rounds, each running
 * forge, git and `node -e 0` (the bare runtime start, so forge's own time is forge − node in the
 * same case) one after the other. Each side is (run index) -> { ms, rssKiB, ...extra }; forge's
 * phase marks (bench/lib/phases.mjs) are collected from its measured runs.
 */
import { median } from '../bench-kit.mjs';
import { fmtMs, fmtRss } from './format.mjs';
import { phaseMedians, takeMarks } from './phases.mjs';

export function createMeasure({ log, node, timingFile }) {
  return function measure(key, runs, { before, forge, git, withNode = true, nodeStarts = 1 }) {
    const results = { forge: [], git: [], node: [] };
    const marks = [];
    for (let i = 0; i <= runs; i++) {
      before?.(i);
      if (timingFile) takeMarks(timingFile); // whatever untimed forge runs left
      const f = forge(i);
      if (timingFile && i > 0) marks.push(...takeMarks(timingFile));
      const g = git ? git(i) : null;
      const n = withNode ? node() : null;
      if (i > 0) {
        results.forge.push(f);
        if (g) results.git.push(g);
        if (n) results.node.push(n);
      }
    }
    const med = (list, k = 'ms') => (list.length > 0 && list[0][k] != null ? median(list.map((r) => r[k])) : null);
    const peak = (list) => (list.length > 0 && list.every((r) => r.rssKiB != null) ? Math.max(...list.map((r) => r.rssKiB)) : null);
    const span = (list) => (list.length > 0 ? [Math.min(...list.map((r) => r.ms)), Math.max(...list.map((r) => r.ms))] : null);
    const out = {
      forge: med(results.forge),
      git: med(results.git),
      node: med(results.node),
      nodeStarts,
      forgeSpan: span(results.forge),
      gitSpan: span(results.git),
      forgeRss: peak(results.forge),
      gitRss: peak(results.git),
      nodeRss: peak(results.node),
      phases: marks.length > 0 ? phaseMedians(marks) : null,
      results,
      med,
    };
    log(`${key}: forge ${fmtMs(out.forge)}, git ${fmtMs(out.git)}, node -e 0 ${fmtMs(out.node)}${out.forgeRss ? `, forge peak ${fmtRss(out.forgeRss)}` : ''}`);
    return out;
  };
}
