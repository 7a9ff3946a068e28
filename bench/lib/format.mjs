/** How the benches print times, sizes and ratios. */
export function fmtMs(ms) {
  if (ms == null) return '—';
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(0)} ms`;
}

/** "383–899 ms", "1.10–1.64 s": the fastest and slowest measured run. */
export function fmtSpan(span) {
  if (!span) return '';
  const [lo, hi] = span;
  return hi >= 1000 ? `${(lo / 1000).toFixed(2)}–${(hi / 1000).toFixed(2)} s` : `${lo.toFixed(0)}–${hi.toFixed(0)} ms`;
}

export const withSpan = (ms, span) => (ms == null ? '—' : span ? `${fmtMs(ms)} (${fmtSpan(span)})` : fmtMs(ms));
export const fmtRss = (kib) => (kib == null ? '—' : `${(kib / 1024).toFixed(0)} MiB`);
export const fmtKiB = (kib) => (kib == null ? '—' : kib >= 10 * 1024 ? `${(kib / 1024).toFixed(0)} MiB` : `${kib} KiB`);

/** forge's median over git's. */
export const ratioOf = (c) => (c.forge != null && c.git != null && c.git > 0 ? c.forge / c.git : null);
/** forge's own time over git's: (forge − node -e 0, measured in the same case) / git (issue 30). */
export const ownRatioOf = (c) => (c.forge != null && c.git != null && c.git > 0 && c.node != null ? (c.forge - (c.nodeStarts ?? 1) * c.node) / c.git : null);
export const fmtRatio = (r) => (r == null ? '—' : `${r.toFixed(2)}x`);

/** A plain-text table on stdout: first column and the last `leftFrom`.. columns left-aligned. */
export function printTable(header, body, leftFrom = header.length) {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => String(row[i]).length)));
  const fmt = (row) => row.map((cell, i) => (i === 0 || i >= leftFrom ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  ');
  console.log(fmt(header));
  for (const row of body) console.log(fmt(row));
}
