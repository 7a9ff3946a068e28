/**
 * A seeded corpus of real-style edits for the recovery ladder (issue 13): base files are every
 * text version in the project's fixture repositories plus generated source files (LF or CRLF,
 * tabs or 2/4 spaces, with or without a BOM, a final newline, trailing whitespace); an edit is a
 * hunk as a diff shows it (1-3 context lines around 0-3 changed lines), its truth is the file with
 * the hunk applied. Perturbations rewrite the old and new text the way models send them.
 */
import { fixtures } from '../../../../fixtures-repos/index.mjs';

export type Rng = () => number;

/** mulberry32: small, fast, and the same sequence on every machine. */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: Rng, items: readonly T[]): T => items[Math.floor(r() * items.length)];
const int = (r: Rng, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

export interface BaseFile {
  name: string;
  /** The file as stored (BOM and newline style included). */
  text: string;
  /** One indentation level as the file writes it. */
  unit: string;
}

export interface Hunk {
  file: BaseFile;
  /** LF-only old and new text of the hunk, exact. */
  oldText: string;
  newText: string;
  /** The file after the edit. */
  truth: string;
  /** The hunk's lines start at this 0-based line. */
  firstLine: number;
}

// ---------- base files ----------

/** Every text version in the fixture repositories that has a few lines and one newline style. */
export function fixtureFiles(): BaseFile[] {
  const out: BaseFile[] = [];
  for (const [name, def] of Object.entries(fixtures)) {
    for (const [c, commit] of def.commits.entries()) {
      for (const f of commit.files ?? []) {
        if (f.text === undefined || (f.mode ?? '100644') === '120000') continue;
        const lf = f.text.replace(/\r\n/g, '\n');
        if (lf.includes('\r') || lf.split('\n').length < 6 || (f.text.includes('\r\n') && /[^\r]\n/.test(f.text))) continue;
        out.push({ name: `${name}@${c}:${f.path}`, text: f.text, unit: /^\t/m.test(lf) ? '\t' : '  ' });
      }
    }
  }
  return out;
}

const WORDS = ['config', 'value', 'index', 'result', 'buffer', 'handler', 'request', 'count', 'items', 'error', 'path', 'name', 'offset', 'limit', 'state', 'entry', 'node', 'total', 'cache', 'token'];
const CALLS = ['load', 'parse', 'update', 'render', 'check', 'flush', 'append', 'resolve', 'emit', 'close', 'open', 'apply'];

function identifier(r: Rng): string {
  return `${pick(r, WORDS)}${pick(r, ['', '', 'Id', 'List', 'Map', String(int(r, 1, 99))])}`;
}

function statement(r: Rng, style: 'c' | 'py'): string {
  const end = style === 'py' ? '' : ';';
  switch (int(r, 0, 5)) {
    case 0:
      return `${identifier(r)} = ${pick(r, CALLS)}(${identifier(r)}, ${int(r, 0, 999)})${end}`;
    case 1:
      return `${pick(r, CALLS)}(${identifier(r)})${end}`;
    case 2:
      return `${style === 'py' ? '#' : '//'} ${pick(r, CALLS)} the ${pick(r, WORDS)} before the ${pick(r, WORDS)}`;
    case 3:
      return `${identifier(r)} += ${int(r, 1, 64)}${end}`;
    case 4:
      return `return ${identifier(r)}${end}`;
    default:
      return `${identifier(r)}.${pick(r, CALLS)}(${JSON.stringify(pick(r, WORDS))})${end}`;
  }
}

function opener(r: Rng, style: 'c' | 'py'): string {
  const cond = `${identifier(r)} ${pick(r, ['<', '>', '==', '!='])} ${int(r, 0, 99)}`;
  if (style === 'py') return pick(r, [`if ${cond}:`, `for ${identifier(r)} in ${identifier(r)}:`, `def ${pick(r, CALLS)}_${identifier(r)}(${identifier(r)}):`]);
  return pick(r, [`if (${cond}) {`, `for (${identifier(r)} of ${identifier(r)}) {`, `function ${pick(r, CALLS)}${identifier(r)}(${identifier(r)}) {`, `while (${cond}) {`]);
}

/** A generated source file: nested blocks of statements in one indentation style (tabs, 2, 4 or 8 spaces), with calls continued on an aligned line. */
export function generatedFile(r: Rng, n: number): BaseFile {
  const unit = pick(r, ['\t', '\t', '    ', '  ', '        ']);
  const style = unit === '    ' && r() < 0.5 ? 'py' : 'c';
  const crlf = r() < 0.3;
  const bom = r() < 0.15;
  const trailing = r() < 0.2;
  const lines: string[] = [];
  let depth = 0;
  const count = int(r, 40, 160);
  while (lines.length < count) {
    const roll = r();
    if (roll < 0.15 && depth < 4) {
      lines.push(unit.repeat(depth) + opener(r, style));
      depth++;
    } else if (roll < 0.27 && depth > 0) {
      depth--;
      if (style === 'c') lines.push(`${unit.repeat(depth)}}`);
    } else if (roll < 0.33) {
      lines.push('');
    } else if (roll < 0.37 && style === 'c') {
      // A call continued on the next line, aligned after the indentation (tabs, then spaces).
      const call = `${pick(r, CALLS)}(${identifier(r)},`;
      lines.push(unit.repeat(depth) + call, unit.repeat(depth) + ' '.repeat(call.indexOf('(') + 1) + `${identifier(r)});`);
    } else {
      lines.push(unit.repeat(depth) + statement(r, style) + (trailing && r() < 0.3 ? pick(r, [' ', '  ', '\t']) : ''));
    }
  }
  while (depth > 0) {
    depth--;
    if (style === 'c') lines.push(`${unit.repeat(depth)}}`);
  }
  const finalNewline = r() < 0.9;
  const lf = lines.join('\n') + (finalNewline ? '\n' : '');
  return { name: `generated-${n}`, text: (bom ? '\ufeff' : '') + (crlf ? lf.replace(/\n/g, '\r\n') : lf), unit };
}

// ---------- hunks ----------

function splitFile(file: BaseFile): { bom: string; lines: string[]; finalNewline: boolean; crlf: boolean } {
  const bom = file.text.startsWith('\ufeff') ? '\ufeff' : '';
  const crlf = file.text.includes('\r\n');
  const lf = file.text.slice(bom.length).replace(/\r\n/g, '\n');
  const finalNewline = lf.endsWith('\n');
  return { bom, lines: (finalNewline ? lf.slice(0, -1) : lf).split('\n'), finalNewline, crlf };
}

function joinFile(bom: string, lines: string[], finalNewline: boolean, crlf: boolean): string {
  const lf = lines.join('\n') + (finalNewline && lines.length > 0 ? '\n' : '');
  return bom + (crlf ? lf.replace(/\n/g, '\r\n') : lf);
}

const leading = (line: string) => /^[ \t]*/.exec(line)![0];

/** A hunk: 1-3 context lines, 0-3 changed lines replaced by 0-3 new ones, 1-3 context lines; null when the file is too short. */
export function makeHunk(r: Rng, file: BaseFile): Hunk | null {
  const { bom, lines, finalNewline, crlf } = splitFile(file);
  const before = int(r, 1, 3);
  const after = int(r, 1, 3);
  const removed = int(r, 0, 3);
  const added = removed === 0 ? int(r, 1, 3) : int(r, 0, 3);
  if (lines.length < before + removed + after + 1) return null;
  const first = int(r, 0, lines.length - (before + removed + after));
  const changeAt = first + before;
  const old = lines.slice(first, changeAt + removed + after);
  // New lines are indented like the line they follow, sometimes one level deeper.
  const indent = leading(lines[changeAt - 1] ?? '') + (r() < 0.3 ? file.unit : '');
  const fresh = Array.from({ length: added }, () => indent + statement(r, 'c'));
  const next = [...lines.slice(first, changeAt), ...fresh, ...lines.slice(changeAt + removed, changeAt + removed + after)];
  const endsAtFileEnd = first + old.length === lines.length;
  const terminated = !endsAtFileEnd || finalNewline;
  const asText = (ls: string[]) => ls.join('\n') + (terminated ? '\n' : '');
  const truthLines = [...lines.slice(0, first), ...next, ...lines.slice(first + old.length)];
  return { file, oldText: asText(old), newText: asText(next), truth: joinFile(bom, truthLines, finalNewline, crlf), firstLine: first };
}

// ---------- perturbations ----------

export const CLASSES = [
  'exact',
  'lf_for_crlf',
  'trailing_whitespace_added',
  'trailing_whitespace_removed',
  'indentation_plus_4',
  'indentation_plus_2',
  'common_indentation_removed',
  'tabs_as_spaces',
  'first_line_missing',
  'first_line_cut',
  // Two perturbations at once (outside issue 13's classes): tabs as spaces, then shifted +4.
  // Where a tab of 4 and one of 8 both fit, refusing is right; a wrong result never is.
  'tabs_as_spaces_shifted',
  // Issue 26: what models really send. A blank line inside the old text written with the
  // indentation around it (in the new text's copy too), and two perturbations at once.
  'blank_lines_indented',
  'common_indentation_removed_trailing_added',
  'trailing_removed_first_line_missing',
] as const;
export type PerturbationClass = (typeof CLASSES)[number];

const mapLines = (text: string, f: (line: string, i: number) => string) => text.split('\n').map((l, i, all) => (i === all.length - 1 && l === '' ? l : f(l, i))).join('\n');
const blank = (line: string) => line.trim() === '';

interface Texts {
  oldText: string;
  newText: string;
}

/** The hunk's old and new text as a model would send them in this class, or null when the class does not apply to it. */
export function perturb(r: Rng, hunk: Hunk, kind: PerturbationClass): Texts | null {
  switch (kind) {
    case 'blank_lines_indented':
      return indentBlankLines(hunk);
    case 'common_indentation_removed_trailing_added':
      return then(r, hunk, perturb(r, hunk, 'common_indentation_removed'), 'trailing_whitespace_added');
    case 'trailing_removed_first_line_missing':
      return then(r, hunk, perturb(r, hunk, 'trailing_whitespace_removed'), 'first_line_missing');
    default:
      return single(r, hunk, kind);
  }
}

/** A second perturbation applied to what the first one sent. */
function then(r: Rng, hunk: Hunk, first: Texts | null, kind: PerturbationClass): Texts | null {
  return first === null ? null : perturb(r, { ...hunk, ...first }, kind);
}

/**
 * Every blank line of the old text written with the indentation of the nearest non-blank line
 * before it (after it, for leading ones), in the old text and in the new text alike (its copies
 * of those lines are written the same way). Null when that changes nothing.
 */
function indentBlankLines(hunk: Hunk): Texts | null {
  const indentBlanks = (text: string) => {
    const lines = text.split('\n');
    const last = lines.length - 1;
    return lines
      .map((l, i) => {
        if (l.trim() !== '' || (i === last && l === '')) return l;
        const near = [...lines.slice(0, i)].reverse().find((x) => x.trim() !== '') ?? lines.slice(i + 1).find((x) => x.trim() !== '') ?? '';
        return leading(near);
      })
      .join('\n');
  };
  const oldText = indentBlanks(hunk.oldText);
  return oldText === hunk.oldText ? null : { oldText, newText: indentBlanks(hunk.newText) };
}

function single(r: Rng, hunk: Hunk, kind: PerturbationClass): Texts | null {
  const { oldText, newText } = hunk;
  const oldLines = new Set(oldText.split('\n'));
  switch (kind) {
    case 'exact':
      return { oldText, newText };
    case 'lf_for_crlf':
      return hunk.file.text.includes('\r\n') ? { oldText, newText } : null;
    case 'trailing_whitespace_added': {
      const pad = () => pick(r, [' ', '  ', '\t', '   ']);
      // The new text repeats the padding on the lines it copies, pads every line, or none.
      const mode = pick(r, ['copied', 'every', 'none'] as const);
      const added = new Map<string, string>();
      const o = mapLines(oldText, (l) => {
        if (blank(l)) return l;
        const p = l + pad();
        added.set(l, p);
        return p;
      });
      const n = mode === 'none' ? newText : mapLines(newText, (l) => (blank(l) ? l : (added.get(l) ?? (mode === 'every' ? l + pad() : l))));
      return { oldText: o, newText: n };
    }
    case 'trailing_whitespace_removed': {
      if (!oldText.split('\n').some((l) => !blank(l) && /[ \t]$/.test(l))) return null;
      const strip = (l: string) => l.replace(/[ \t]+$/, '');
      return { oldText: mapLines(oldText, strip), newText: mapLines(newText, (l) => (oldLines.has(l) ? strip(l) : l)) };
    }
    case 'indentation_plus_4': {
      const shift = (l: string) => (blank(l) ? l : `    ${l}`);
      return { oldText: mapLines(oldText, shift), newText: mapLines(newText, shift) };
    }
    case 'indentation_plus_2': {
      // Two spaces, also before tabs: a tab stop must not absorb the shift.
      const shift = (l: string) => (blank(l) ? l : `  ${l}`);
      return { oldText: mapLines(oldText, shift), newText: mapLines(newText, shift) };
    }
    case 'common_indentation_removed': {
      const content = [...oldText.split('\n'), ...newText.split('\n')].filter((l) => !blank(l));
      let common = leading(content[0] ?? '');
      for (const l of content) while (!l.startsWith(common)) common = common.slice(0, -1);
      if (common === '') return null;
      const cut = (l: string) => (l.startsWith(common) ? l.slice(common.length) : l);
      return { oldText: mapLines(oldText, cut), newText: mapLines(newText, cut) };
    }
    case 'tabs_as_spaces': {
      if (!oldText.split('\n').some((l) => l.startsWith('\t'))) return null;
      const width = pick(r, [4, 4, 4, 8, 2]);
      const spaces = (l: string) => l.replace(/^\t+/, (tabs) => ' '.repeat(tabs.length * width));
      return { oldText: mapLines(oldText, spaces), newText: mapLines(newText, spaces) };
    }
    case 'tabs_as_spaces_shifted': {
      if (!oldText.split('\n').some((l) => l.startsWith('\t'))) return null;
      const width = pick(r, [4, 4, 8]);
      const spaces = (l: string) => (blank(l) ? l : `    ${l.replace(/^\t+/, (tabs) => ' '.repeat(tabs.length * width))}`);
      return { oldText: mapLines(oldText, spaces), newText: mapLines(newText, spaces) };
    }
    case 'first_line_missing': {
      const o = oldText.split('\n');
      const n = newText.split('\n');
      if (o.length < 3 || o[0] !== n[0]) return null;
      return { oldText: o.slice(1).join('\n'), newText: n.slice(1).join('\n') };
    }
    case 'first_line_cut': {
      const o = oldText.split('\n');
      const n = newText.split('\n');
      if (o.length < 3 || o[0] !== n[0] || o[0].trim().length < 4) return null;
      const half = Math.floor(o[0].length / 2);
      // The end of the line cut off (the new text repeats the cut line, or writes it out in full),
      // or its start (copied from mid-line: the new text starts there too).
      const endCut = r() < 0.6;
      const cut = endCut ? o[0].slice(0, half) : o[0].slice(half);
      const newFirst = endCut && r() < 0.4 ? n[0] : cut;
      return { oldText: [cut, ...o.slice(1)].join('\n'), newText: [newFirst, ...n.slice(1)].join('\n') };
    }
    default:
      return null;
  }
}
