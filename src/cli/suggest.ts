/** "did you mean …?": the candidates close to a mistyped name (pure). */

/** Levenshtein distance, with an early exit once every path exceeds `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      best = Math.min(best, current[j]!);
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidates within a third of the name's length in edits (at least 1, at most 3), or that
 * the name is a prefix of (a shortened UUID), closest first, at most `max`.
 */
export function closeMatches(name: string, candidates: readonly string[], max = 3): string[] {
  const limit = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  const scored: Array<[string, number]> = [];
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const distance = name.length >= 4 && candidate.startsWith(name) ? 0 : editDistance(name.toLowerCase(), candidate.toLowerCase(), limit);
    if (distance <= limit) scored.push([candidate, distance]);
  }
  scored.sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  return scored.slice(0, max).map(([candidate]) => candidate);
}

/** The hint every command gives for an unknown session: the same words everywhere. */
export function unknownSessionHint(matches: readonly string[]): string {
  const list = '"forge session list" shows every session.';
  if (matches.length === 0) return list;
  return `did you mean ${matches.length === 1 ? matches[0] : `${matches.slice(0, -1).join(', ')} or ${matches.at(-1)}`}? ${list}`;
}
