/**
 * Issue 13's replay, on a corpus the project builds itself (test/unit/text/replay/corpus.ts): real-style
 * hunks on the fixture repositories' files and on generated LF/CRLF, tab/space, BOM files, sent
 * exactly and with each perturbation models make, through Edit (snippet mode) and Patch. Many
 * seeds, so nothing is tuned to one corpus. In every class: 0 wrong results; whitespace drift
 * applied exactly in >= 98% of cases; a missing or cut first line recovered whenever the rest is
 * unique and specific, refused otherwise.
 */
import { describe, expect, it } from 'vitest';
import { applyPatches, applySnippetEdit } from '../../../src/text';
import { CLASSES, fixtureFiles, generatedFile, makeHunk, perturb, rng, type BaseFile, type Hunk, type PerturbationClass } from './replay/corpus';

type Outcome = 'exact' | 'refused' | 'wrong';
type Tool = 'edit' | 'patch';

interface Tally {
  exact: number;
  refused: number;
  wrong: number;
  /** first_line_*: cases whose remaining lines are unique and specific, and how many of them were applied exactly. */
  recoverable: number;
  recovered: number;
  wrongExamples: string[];
}

/** FORGE_REPLAY_SEED_BASE replays 12 other seeds (a held-out run); the committed corpus starts at 1000. */
const SEED_BASE = Number(process.env.FORGE_REPLAY_SEED_BASE ?? 1000);
const SEEDS = Array.from({ length: 12 }, (_, i) => SEED_BASE + i * 7919);
const GENERATED_FILES = 14;
const HUNKS_PER_FILE = 6;

function runEdit(file: BaseFile, oldText: string, newText: string): string | null {
  const result = applySnippetEdit(file.text, { oldSnippet: oldText, newSnippet: newText });
  return result.status === 'ok' ? result.text : null;
}

function runPatch(file: BaseFile, oldText: string, newText: string): string | null {
  try {
    return applyPatches(file.text, [{ operation: 'replace', oldText, newText }]).text;
  } catch (error) {
    if ((error as { code?: string }).code === undefined) throw error;
    return null;
  }
}

function canonical(file: BaseFile): string {
  return file.text.replace(/^\ufeff/, '').replace(/\r\n/g, '\n');
}

function occurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) n++;
  return n;
}

/** The hunk without its first line can only be placed when it is unique and has enough content (two lines, 12 characters). */
function restIsRecoverable(hunk: Hunk): boolean {
  const rest = hunk.oldText.split('\n').slice(1).join('\n');
  const content = rest.split('\n').filter((l) => l.trim() !== '');
  const chars = content.reduce((sum, l) => sum + l.replace(/\s+/g, '').length, 0);
  return occurrences(canonical(hunk.file), rest) === 1 && content.length >= 2 && chars >= 12;
}

let indistinguishable = 0;

/** Whether `text` occurs in the file anywhere but inside the hunk's own lines. */
function occursOutside(hunk: Hunk, text: string): boolean {
  const haystack = canonical(hunk.file);
  let start = 0;
  for (let line = 0; line < hunk.firstLine; line++) start = haystack.indexOf('\n', start) + 1;
  const end = start + hunk.oldText.length;
  for (let i = haystack.indexOf(text); i !== -1; i = haystack.indexOf(text, i + 1)) if (i < start || i + text.length > end) return true;
  return false;
}

function replay(seed: number): Map<string, Tally> {
  const r = rng(seed);
  const files = [...fixtureFiles(), ...Array.from({ length: GENERATED_FILES }, (_, i) => generatedFile(r, i))];
  const tallies = new Map<string, Tally>();
  const tally = (tool: Tool, kind: PerturbationClass) => {
    const key = `${kind}/${tool}`;
    let t = tallies.get(key);
    if (t === undefined) tallies.set(key, (t = { exact: 0, refused: 0, wrong: 0, recoverable: 0, recovered: 0, wrongExamples: [] }));
    return t;
  };
  for (const file of files) {
    for (let h = 0; h < HUNKS_PER_FILE; h++) {
      const hunk = makeHunk(r, file);
      // Only hunks an exact copy places (unique), as in real history replayed with exact snippets.
      if (hunk === null || occurrences(canonical(file), hunk.oldText) !== 1) continue;
      for (const kind of CLASSES) {
        const sent = perturb(r, hunk, kind);
        if (sent === null) continue;
        const crlf = kind === 'exact' && file.text.includes('\r\n');
        const oldText = crlf ? sent.oldText.replace(/\n/g, '\r\n') : sent.oldText;
        const newText = crlf ? sent.newText.replace(/\n/g, '\r\n') : sent.newText;
        // A perturbed text that occurs verbatim elsewhere in the file is another edit, not drift: no tool can tell.
        if (occursOutside(hunk, sent.oldText)) {
          indistinguishable++;
          continue;
        }
        // A cut line that still occurs exactly (the end of an aligned line, say) is the exact path's case, not the ladder's.
        const recoverable = (kind === 'first_line_missing' || kind === 'first_line_cut') && restIsRecoverable(hunk) && occurrences(canonical(file), sent.oldText) === 0;
        for (const [tool, run] of [['edit', runEdit], ['patch', runPatch]] as const) {
          const result = run(file, oldText, newText);
          const outcome: Outcome = result === null ? 'refused' : result === hunk.truth ? 'exact' : 'wrong';
          const t = tally(tool, kind);
          t[outcome]++;
          if (recoverable) {
            t.recoverable++;
            if (outcome === 'exact') t.recovered++;
            else if (process.env.FORGE_REPLAY_REPORT) console.log(`not recovered: ${JSON.stringify({ seed, kind, tool, file: file.name, oldText, newText })}`);
          }
          if (outcome === 'wrong' && t.wrongExamples.length < 2) {
            t.wrongExamples.push(JSON.stringify({ seed, kind, tool, file: file.name, oldText, newText, got: result, want: hunk.truth }));
          }
        }
      }
    }
  }
  return tallies;
}

const DRIFT: readonly PerturbationClass[] = [
  'trailing_whitespace_added',
  'trailing_whitespace_removed',
  'indentation_plus_4',
  'indentation_plus_2',
  'common_indentation_removed',
  'tabs_as_spaces',
  'blank_lines_indented',
  'common_indentation_removed_trailing_added',
  'trailing_removed_first_line_missing',
];

describe('issue 13 replay corpus: Edit and Patch under the perturbations models make', () => {
  const totals = new Map<string, Tally>();

  it.each(SEEDS)('seed %i: 0 wrong results in every class; exact stays exact; drift recovered; a missing or cut first line recovered when the rest is unique', (seed) => {
    const tallies = replay(seed);
    for (const [key, t] of tallies) {
      const sum = totals.get(key) ?? { exact: 0, refused: 0, wrong: 0, recoverable: 0, recovered: 0, wrongExamples: [] };
      totals.set(key, { ...sum, exact: sum.exact + t.exact, refused: sum.refused + t.refused, wrong: sum.wrong + t.wrong, recoverable: sum.recoverable + t.recoverable, recovered: sum.recovered + t.recovered });
    }
    for (const [key, t] of tallies) {
      if (t.wrongExamples.length > 0 && process.env.FORGE_REPLAY_REPORT) console.log(t.wrongExamples.join("\n"));
      expect(t.wrongExamples, `${key}: wrong results`).toEqual([]);
      const [kind] = key.split('/') as [PerturbationClass];
      if (kind === 'exact' || kind === 'lf_for_crlf') expect(t.refused, `${key}: refused`).toBe(0);
      if (kind === 'first_line_missing' || kind === 'first_line_cut') expect(t.recovered, `${key}: recovered of ${t.recoverable} recoverable`).toBe(t.recoverable);
    }
    // Every class was exercised for both tools.
    for (const kind of CLASSES) for (const tool of ['edit', 'patch']) expect(tallies.get(`${kind}/${tool}`)?.exact ?? 0, `${kind}/${tool} cases`).toBeGreaterThan(0);
  });

  it('over all seeds: whitespace drift applied exactly in >= 98% of cases for both tools', () => {
    const rows = [...totals].sort().map(([key, t]) => {
      const n = t.exact + t.refused + t.wrong;
      return `${key.padEnd(48)} ${String(t.exact).padStart(5)} exact ${String(t.refused).padStart(5)} refused ${String(t.wrong).padStart(3)} wrong  (${((100 * t.exact) / n).toFixed(1)}%)`;
    });
    if (process.env.FORGE_REPLAY_REPORT) console.log(`${rows.join('\n')}\nskipped as indistinguishable (perturbed text occurs verbatim elsewhere): ${indistinguishable}`);
    for (const [key, t] of [...totals].sort()) {
      const n = t.exact + t.refused + t.wrong;
      const [kind] = key.split('/') as [PerturbationClass];
      expect(t.wrong, key).toBe(0);
      if (DRIFT.includes(kind)) expect(t.exact / n, `${key}: ${t.exact}/${n} exact`).toBeGreaterThanOrEqual(0.98);
    }
    expect(totals.size).toBe(CLASSES.length * 2);
  });
});
