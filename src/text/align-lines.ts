/**
 * Which lines of a new text are copies of which lines of the old text (a longest common
 * subsequence of their keys), so that a copy can be written exactly as the file has the old line
 * it stands for, and every other line is a new line written as the model wrote it.
 */

/** Largest table the exact alignment fills; beyond it, copies are matched greedily in order. */
const MAX_CELLS = 4_000_000;

/**
 * For each index of `b`, the index of `a` it is aligned with (keys equal), or undefined. Among
 * alignments with the most lines, the one with the most lines also equal in `exactA`/`exactB`
 * (the lines as written) wins.
 */
export function alignLines(a: readonly string[], b: readonly string[], exactA: readonly string[] = a, exactB: readonly string[] = b): (number | undefined)[] {
  const out: (number | undefined)[] = new Array(b.length).fill(undefined);
  const same = (i: number, j: number) => a[i] === b[j] && exactA[i] === exactB[j];
  // Common ends first: most edits change a few lines in the middle.
  let head = 0;
  while (head < a.length && head < b.length && same(head, head)) out[head] = head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && same(a.length - 1 - tail, b.length - 1 - tail)) {
    out[b.length - 1 - tail] = a.length - 1 - tail;
    tail++;
  }
  const [n, m] = [a.length - head - tail, b.length - head - tail];
  if (n === 0 || m === 0) return out;
  if ((n + 1) * (m + 1) > MAX_CELLS) {
    let j = head;
    for (let i = head; i < head + n; i++) {
      const k = b.indexOf(a[i]!, j);
      if (k === -1 || k >= head + m) continue;
      out[k] = i;
      j = k + 1;
    }
    return out;
  }
  // score[i][j]: best alignment of a[head+i..] and b[head+j..]; a line pair counts `big`, an exact one 1 more.
  const big = Math.min(n, m) + 1;
  const gain = (i: number, j: number) => (a[head + i] !== b[head + j] ? 0 : big + (exactA[head + i] === exactB[head + j] ? 1 : 0));
  const width = m + 1;
  const score = new Float64Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const g = gain(i, j);
      score[i * width + j] = Math.max(g > 0 ? score[(i + 1) * width + j + 1]! + g : 0, score[(i + 1) * width + j]!, score[i * width + j + 1]!);
    }
  }
  let [i, j] = [0, 0];
  while (i < n && j < m) {
    const g = gain(i, j);
    if (g > 0 && score[i * width + j] === score[(i + 1) * width + j + 1]! + g) {
      out[head + j] = head + i;
      i++;
      j++;
    } else if (score[(i + 1) * width + j]! >= score[i * width + j + 1]!) i++;
    else j++;
  }
  return out;
}
