/**
 * Random two-branch histories for the merge and rebase oracles (fast-check arbitraries): a base
 * tree of text files (shared and unique lines, CRLF, missing final newlines), binary files,
 * executables and the odd symlink, and on each side a list of operations: line edits at random
 * places (so edits of the two sides overlap, touch or stay apart), adds (sometimes of the same
 * path on both sides), deletes, mode flips, binary rewrites, moves (renames), a file turned into
 * a directory and back, plus changes made identically on both sides.
 *
 * Everything here is pure: a case becomes three file maps, and `fastImportStream` turns many
 * cases into one `git fast-import` stream, so that one repository holds all of them.
 */
import fc from 'fast-check';

export type Mode = '100644' | '100755' | '120000';

export interface FileSpec {
  /** Bytes as a latin1 string (binary files hold NULs). */
  content: string;
  mode: Mode;
}

export type FileMap = Map<string, FileSpec>;

export type Op =
  | { op: 'edit'; file: number; edits: Array<{ at: number; del: number; ins: string[] }> }
  | { op: 'add'; path: number; file: FileSpec }
  | { op: 'delete'; file: number }
  | { op: 'chmod'; file: number }
  | { op: 'binary'; file: number; seed: number }
  | { op: 'move'; file: number; path: number; edit: boolean }
  | { op: 'toDir'; file: number; child: string }
  | { op: 'eol'; file: number };

export interface HistoryCase {
  base: Array<[number, FileSpec]>;
  shared: Op[];
  ours: Op[];
  theirs: Op[];
}

/** Paths overlap on purpose: "docs" and "src/lib" are also directories of other paths. */
export const PATHS = [
  'a.txt',
  'b.txt',
  'c.md',
  'data.bin',
  'run.sh',
  'src/main.js',
  'src/util.js',
  'src/lib/x.ts',
  'src/lib/y.ts',
  'src/lib',
  'docs/guide.md',
  'docs/api/index.md',
  'docs',
  'link',
  'z/deep/er/file.txt',
];

const COMMON_LINES = ['}', '', '  return value;', '{', '// TODO', 'end'];

export const lineArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...COMMON_LINES) },
  { weight: 7, arbitrary: fc.nat(80).map((n) => `line ${n}`) },
);

/**
 * Repetitive texts with a few point edits on each side (a line replaced, inserted or removed):
 * line alignment is ambiguous and conflicts land a few lines apart, where git joins conflicts at
 * most three lines apart into one region (xdl_simplify_non_conflicts).
 */
const pointEditArb = fc.record({ at: fc.nat(15), kind: fc.constantFrom('replace', 'insert', 'delete'), text: fc.nat(4) });

function applyPointEdits(base: string[], edits: ReadonlyArray<{ at: number; kind: string; text: number }>, prefix: string): string[] {
  const out = [...base];
  for (const e of edits) {
    const at = e.at % (out.length + 1);
    if (e.kind === 'insert' || at === out.length) out.splice(at, 0, `${prefix}${e.text}`);
    else if (e.kind === 'delete') out.splice(at, 1);
    else out[at] = `${prefix}${e.text}`;
  }
  return out;
}

/**
 * Conflicts placed 0-5 lines apart on purpose: both sides change the same 2-3 spots of a
 * repetitive text (replacing or inserting a line there), with `gap` unchanged lines between spots.
 */
const spacedConflictsArb = fc
  .record({
    lead: fc.nat(3),
    gaps: fc.array(fc.nat(5), { minLength: 1, maxLength: 2 }),
    tail: fc.nat(3),
    filler: fc.constantFrom('l0', 'l1'),
    kinds: fc.array(fc.tuple(fc.constantFrom('replace', 'insert'), fc.constantFrom('replace', 'insert'), fc.nat(4), fc.nat(4)), { minLength: 3, maxLength: 3 }),
  })
  .map(({ lead, gaps, tail, filler, kinds }) => {
    const spots = [lead];
    for (const gap of gaps) spots.push(spots[spots.length - 1]! + 1 + gap);
    const base: string[] = Array.from({ length: spots[spots.length - 1]! + 1 + tail }, () => filler);
    const side = (which: 0 | 1, prefix: string) => {
      const out = [...base];
      // From the last spot backwards, so insertions do not move the spots before them.
      for (let k = spots.length - 1; k >= 0; k--) {
        const kind = kinds[k]![which];
        const line = `${prefix}${kinds[k]![2 + which]}`;
        if (kind === 'insert') out.splice(spots[k]!, 0, line);
        else out[spots[k]!] = line;
      }
      return out;
    };
    return { base, ours: side(0, 'x'), theirs: side(1, 'y') };
  });

const text = (lines: string[]) => lines.map((l) => `${l}\n`).join('');

/**
 * Repetitive texts with a few point edits on each side (a line replaced, inserted or removed), or
 * with conflicts spaced on purpose: line alignment is ambiguous and conflicts land a few lines
 * apart, where git joins conflicts at most three lines apart into one region
 * (xdl_simplify_non_conflicts).
 */
export const sparseEditsArb: fc.Arbitrary<{ base: string; ours: string; theirs: string }> = fc.oneof(
  fc
    .record({
      base: fc.array(fc.constantFrom('l0', 'l0', 'l0', 'l1'), { minLength: 4, maxLength: 14 }),
      ours: fc.array(pointEditArb, { minLength: 1, maxLength: 4 }),
      theirs: fc.array(pointEditArb, { minLength: 1, maxLength: 4 }),
    })
    .map(({ base, ours, theirs }) => ({ base: text(base), ours: text(applyPointEdits(base, ours, 'x')), theirs: text(applyPointEdits(base, theirs, 'y')) })),
  spacedConflictsArb.map(({ base, ours, theirs }) => ({ base: text(base), ours: text(ours), theirs: text(theirs) })),
);

/** Mostly one repeated line: diffs are ambiguous and conflicts of several edits land a few lines apart. */
const repetitiveLinesArb = fc.array(fc.constantFrom('l0', 'l0', 'l0', 'l1'), { minLength: 4, maxLength: 14 });

const textArb: fc.Arbitrary<string> = fc
  .record({
    lines: fc.oneof({ weight: 3, arbitrary: fc.array(lineArb, { maxLength: 18 }) }, { weight: 1, arbitrary: repetitiveLinesArb }),
    crlf: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    finalNewline: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  })
  .map(({ lines, crlf, finalNewline }) => join(lines, crlf ? '\r\n' : '\n', finalNewline));

function join(lines: string[], nl: string, finalNewline: boolean): string {
  if (lines.length === 0) return '';
  return lines.join(nl) + (finalNewline ? nl : '');
}

const binaryArb: fc.Arbitrary<string> = fc.array(fc.nat(255), { minLength: 1, maxLength: 40 }).map((bytes) => '\0' + String.fromCharCode(...bytes));

export const fileArb: fc.Arbitrary<FileSpec> = fc.oneof(
  { weight: 12, arbitrary: fc.record({ content: textArb, mode: fc.constant<Mode>('100644') }) },
  { weight: 2, arbitrary: fc.record({ content: textArb, mode: fc.constant<Mode>('100755') }) },
  { weight: 2, arbitrary: fc.record({ content: binaryArb, mode: fc.constant<Mode>('100644') }) },
  { weight: 1, arbitrary: fc.record({ content: fc.constantFrom('a.txt', 'src', 'nowhere'), mode: fc.constant<Mode>('120000') }) },
);

const editArb = fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), del: fc.nat(3), ins: fc.array(lineArb, { maxLength: 3 }) });

export const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 10, arbitrary: fc.record({ op: fc.constant('edit' as const), file: fc.nat(), edits: fc.array(editArb, { minLength: 1, maxLength: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('add' as const), path: fc.nat(), file: fileArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), file: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('chmod' as const), file: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('binary' as const), file: fc.nat(), seed: fc.nat(255) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('move' as const), file: fc.nat(), path: fc.nat(), edit: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('toDir' as const), file: fc.nat(), child: fc.constantFrom('inner.txt', 'x.ts') }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('eol' as const), file: fc.nat() }) },
);

const generalHistoryArb: fc.Arbitrary<HistoryCase> = fc.record({
  base: fc.array(fc.tuple(fc.nat(PATHS.length - 1), fileArb), { maxLength: 10 }),
  shared: fc.array(opArb, { maxLength: 2 }),
  ours: fc.array(opArb, { maxLength: 5 }),
  theirs: fc.array(opArb, { maxLength: 5 }),
});

/**
 * One file both sides edit as sparseEditsArb does: the cases where git's joining of conflicts at
 * most three lines apart (xdl_simplify_non_conflicts) decides the merged text, which random whole
 * histories reach too rarely to catch a wrong distance.
 */
const nearbyConflictsArb: fc.Arbitrary<HistoryCase> = fc.tuple(fc.nat(PATHS.length - 1), sparseEditsArb).map(([path, texts]) => {
  const file = (content: string): FileSpec => ({ content, mode: '100644' });
  return {
    base: [[path, file(texts.base)]],
    shared: [],
    ours: [{ op: 'add', path, file: file(texts.ours) }],
    theirs: [{ op: 'add', path, file: file(texts.theirs) }],
  };
});

export const historyArb: fc.Arbitrary<HistoryCase> = fc.oneof({ weight: 4, arbitrary: generalHistoryArb }, { weight: 1, arbitrary: nearbyConflictsArb });

/** Puts a file at a path, removing what would make the tree invalid (files below it, a file above it). */
export function place(files: FileMap, path: string, spec: FileSpec): void {
  for (const existing of [...files.keys()]) {
    if (existing.startsWith(path + '/') || path.startsWith(existing + '/')) files.delete(existing);
  }
  files.set(path, spec);
}

export function baseFiles(c: Pick<HistoryCase, 'base'>): FileMap {
  const files: FileMap = new Map();
  for (const [p, spec] of c.base) place(files, PATHS[p]!, spec);
  return files;
}

function pick(files: FileMap, n: number): string | undefined {
  const paths = [...files.keys()].sort();
  return paths.length === 0 ? undefined : paths[n % paths.length];
}

function splitKeep(text: string): { lines: string[]; nl: string; finalNewline: boolean } {
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const finalNewline = text.endsWith(nl);
  const body = finalNewline ? text.slice(0, -nl.length) : text;
  return { lines: body === '' && !finalNewline ? [] : body.split(nl), nl, finalNewline: finalNewline || body === '' };
}

export function applyOp(files: FileMap, op: Op): void {
  switch (op.op) {
    case 'edit': {
      const path = pick(files, op.file);
      const spec = path === undefined ? undefined : files.get(path)!;
      if (path === undefined || spec === undefined || spec.mode === '120000' || spec.content.includes('\0')) return;
      const { lines, nl, finalNewline } = splitKeep(spec.content);
      for (const e of op.edits) {
        const at = Math.min(lines.length, Math.floor(e.at * (lines.length + 1)));
        lines.splice(at, e.del, ...e.ins);
      }
      files.set(path, { ...spec, content: join(lines, nl, finalNewline) });
      return;
    }
    case 'add':
      place(files, PATHS[op.path % PATHS.length]!, op.file);
      return;
    case 'delete': {
      const path = pick(files, op.file);
      if (path !== undefined) files.delete(path);
      return;
    }
    case 'chmod': {
      const path = pick(files, op.file);
      const spec = path === undefined ? undefined : files.get(path)!;
      if (path === undefined || spec === undefined || spec.mode === '120000') return;
      files.set(path, { ...spec, mode: spec.mode === '100644' ? '100755' : '100644' });
      return;
    }
    case 'binary': {
      const path = pick(files, op.file);
      const spec = path === undefined ? undefined : files.get(path)!;
      if (path === undefined || spec === undefined || spec.mode === '120000') return;
      files.set(path, { ...spec, content: spec.content.slice(0, 20) + '\0' + String.fromCharCode(op.seed) });
      return;
    }
    case 'move': {
      const path = pick(files, op.file);
      if (path === undefined) return;
      const spec = files.get(path)!;
      const target = PATHS[op.path % PATHS.length]!;
      if (target === path) return;
      files.delete(path);
      const content = op.edit && spec.mode !== '120000' && !spec.content.includes('\0') ? spec.content + 'moved\n' : spec.content;
      place(files, target, { ...spec, content });
      return;
    }
    case 'toDir': {
      const path = pick(files, op.file);
      if (path === undefined) return;
      const spec = files.get(path)!;
      files.delete(path);
      place(files, `${path}/${op.child}`, spec);
      return;
    }
    case 'eol': {
      const path = pick(files, op.file);
      const spec = path === undefined ? undefined : files.get(path)!;
      if (path === undefined || spec === undefined || spec.mode === '120000' || spec.content.includes('\0') || spec.content === '') return;
      files.set(path, { ...spec, content: spec.content.endsWith('\n') ? spec.content.replace(/\r?\n$/, '') : spec.content + '\n' });
      return;
    }
  }
}

export function sideFiles(base: FileMap, shared: Op[], ops: Op[]): FileMap {
  const files: FileMap = new Map(base);
  for (const op of shared) applyOp(files, op);
  for (const op of ops) applyOp(files, op);
  return files;
}

/** The three trees of a case. */
export function caseTrees(c: HistoryCase): { base: FileMap; ours: FileMap; theirs: FileMap } {
  const base = baseFiles(c);
  return { base, ours: sideFiles(base, c.shared, c.ours), theirs: sideFiles(base, c.shared, c.theirs) };
}

/** fast-import commands for one commit holding exactly `files` (data inline). */
export function commitCommand(ref: string, files: FileMap, parent: string | null, message: string, mark?: number): Buffer[] {
  const parts: Buffer[] = [];
  const msg = Buffer.from(message, 'utf8');
  parts.push(Buffer.from(`commit ${ref}\n${mark !== undefined ? `mark :${mark}\n` : ''}author Forge Test <forge-test@example.invalid> 1704067200 +0000\ncommitter Forge Test <forge-test@example.invalid> 1704067200 +0000\ndata ${msg.length}\n`));
  parts.push(msg, Buffer.from('\n'));
  if (parent !== null) parts.push(Buffer.from(`from ${parent}\n`));
  parts.push(Buffer.from('deleteall\n'));
  for (const [path, spec] of [...files.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const bytes = Buffer.from(spec.content, 'latin1');
    parts.push(Buffer.from(`M ${spec.mode} inline ${path}\ndata ${bytes.length}\n`), bytes, Buffer.from('\n'));
  }
  parts.push(Buffer.from('\n'));
  return parts;
}
