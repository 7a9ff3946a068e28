/**
 * One object judged as git's fsck judges it with `--strict` (fsck.c fsck_tree / fsck_commit /
 * fsck_tag / fsck_gitmodules_fn; warnings count as errors, as `transfer.fsckObjects` with
 * `fsck.strict` does): the bytes as written, not the engine's parsed form, so a malformed
 * object cannot be normalized into a valid-looking one. Tree entry names are judged by
 * tree-names.ts (git's verify_path with core.protectNTFS and core.protectHFS on), the one place
 * those rules live. Pure: also returns the object's links, for the connectivity walk.
 */
import { parseGitConfig } from './config-parser';
import type { ObjectType } from './object-codec';
import { isDotGitmodulesName, symlinkNameProblem, treeNameProblem, type NameProblem } from './tree-names';

/** A rule of git's fsck (its message id, e.g. `hasDotgit`), and what broke it. */
export interface FsckProblem {
  oid: string;
  rule: string;
  detail: string;
}

export interface ObjectLink {
  oid: string;
  /** What the link says the object is. */
  type: ObjectType;
  /** Where it was found, for messages (`src/app.js`, `tree`, `parent 2`). */
  via: string;
}

export interface FsckResult {
  problem: FsckProblem | null;
  /** Objects this one names (gitlinks excluded: a submodule's commit lives elsewhere). */
  links: ObjectLink[];
  /** Blobs this tree names `.gitmodules` (in any spelling): their content is checked too. */
  gitmodules: string[];
}

const NAME_RULES: Record<NameProblem, string> = {
  // git cannot decode an entry without a name at all (badTree), rather than reporting emptyName.
  empty: 'badTree',
  'has-slash': 'fullPathname',
  'has-nul': 'fullPathname',
  dot: 'hasDot',
  dotdot: 'hasDotdot',
  dotgit: 'hasDotgit',
};

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const HEX = '0123456789abcdef';

function hexOf(bytes: Uint8Array, start: number): string {
  let out = '';
  for (let k = start; k < start + 20; k++) out += HEX[bytes[k]! >> 4]! + HEX[bytes[k]! & 15]!;
  return out;
}

/** git's tree order: bytes, a directory's name as if followed by "/". */
function compareEntryNames(a: Uint8Array, aDir: boolean, b: Uint8Array, bDir: boolean): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  const ac = a.length > n ? a[n]! : aDir ? 0x2f : 0;
  const bc = b.length > n ? b[n]! : bDir ? 0x2f : 0;
  return ac - bc;
}

export function fsckObject(type: ObjectType, content: Uint8Array, oid: string): FsckResult {
  switch (type) {
    case 'tree':
      return fsckTree(content, oid);
    case 'commit':
      return fsckCommit(content, oid);
    case 'tag':
      return fsckTag(content, oid);
    default:
      return { problem: null, links: [], gitmodules: [] };
  }
}

function fsckTree(content: Uint8Array, oid: string): FsckResult {
  const links: ObjectLink[] = [];
  const gitmodules: string[] = [];
  const fail = (rule: string, detail: string): FsckResult => ({ problem: { oid, rule, detail }, links, gitmodules });
  const names = new Set<string>();
  let previous: { bytes: Uint8Array; dir: boolean } | null = null;
  let i = 0;
  while (i < content.length) {
    const space = content.indexOf(0x20, i);
    const nul = space < 0 ? -1 : content.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > content.length) return fail('badTree', 'a truncated entry');
    let written = '';
    for (let k = i; k < space; k++) written += String.fromCharCode(content[k]!);
    if (!/^[0-7]+$/.test(written)) return fail('badTree', `a mode that is not octal (${JSON.stringify(written)})`);
    const nameBytes = content.subarray(space + 1, nul);
    let name: string;
    try {
      name = strictUtf8.decode(nameBytes);
    } catch {
      return fail('badTreeName', 'an entry name that is not UTF-8');
    }
    const entryOid = hexOf(content, nul + 1);
    i = nul + 21;
    const shown = JSON.stringify(name);
    const nameProblem = treeNameProblem(name);
    if (nameProblem !== null) return fail(NAME_RULES[nameProblem], `the entry ${shown} (${nameProblem})`);
    if (written.startsWith('0')) return fail('zeroPaddedFilemode', `the entry ${shown} has the zero-padded mode ${written}`);
    const mode = written === '40000' ? 'tree' : written === '100644' || written === '100755' || written === '120000' ? 'blob' : written === '160000' ? 'gitlink' : null;
    if (mode === null) return fail('badFilemode', `the entry ${shown} has the mode ${written}`);
    if (/^0{40}$/.test(entryOid)) return fail('nullSha1', `the entry ${shown} names the null object id`);
    if (written === '120000') {
      const linkProblem = symlinkNameProblem(name);
      if (linkProblem !== null) return fail(`${linkProblem.slice(1).split(' ')[0]}Symlink`, `the entry ${shown}: ${linkProblem}`);
    } else if (mode === 'blob' && isDotGitmodulesName(name)) {
      gitmodules.push(entryOid);
    }
    if (names.has(name)) return fail('duplicateEntries', `two entries named ${shown}`);
    names.add(name);
    const dir = mode === 'tree';
    if (previous !== null && compareEntryNames(previous.bytes, previous.dir, nameBytes, dir) >= 0) return fail('treeNotSorted', `the entry ${shown} is out of git's order`);
    previous = { bytes: nameBytes, dir };
    if (mode !== 'gitlink') links.push({ oid: entryOid, type: mode, via: name });
  }
  return { problem: null, links, gitmodules };
}

/** The header lines of a commit or tag, before the blank line; null when there is none or a NUL precedes it. */
function headerLines(content: Uint8Array): { lines: string[]; nul: boolean } | null {
  let end = -1;
  for (let k = 0; k + 1 < content.length; k++) {
    if (content[k] === 0) return { lines: [], nul: true };
    if (content[k] === 0x0a && content[k + 1] === 0x0a) {
      end = k;
      break;
    }
  }
  if (end < 0) {
    // git accepts a commit without a message only when the headers end with a newline.
    if (content.length === 0 || content[content.length - 1] !== 0x0a) return null;
    end = content.length - 1;
    if (content.includes(0)) return { lines: [], nul: true };
  }
  return { lines: new TextDecoder().decode(content.subarray(0, end)).split('\n'), nul: false };
}

/** fsck.c fsck_ident: "Name <email> <seconds> <+hhmm>". */
function identProblem(value: string): string | null {
  if (value.startsWith('<')) return 'missingNameBeforeEmail';
  const lt = value.search(/[<>]/);
  if (lt < 0) return 'missingEmail';
  if (value[lt] === '>') return 'badName';
  if (lt === 0 || value[lt - 1] !== ' ') return 'missingSpaceBeforeEmail';
  const gt = value.slice(lt + 1).search(/[<>]/) + lt + 1;
  if (gt <= lt || value[gt] !== '>') return 'badEmail';
  const rest = value.slice(gt + 1);
  if (!rest.startsWith(' ')) return 'missingSpaceBeforeDate';
  const date = /^ (\d+)( |$)/.exec(rest);
  if (date === null) return 'badDate';
  if (date[1]!.length > 1 && date[1]!.startsWith('0')) return 'zeroPaddedDate';
  if (!Number.isSafeInteger(Number(date[1]))) return 'badDateOverflow';
  if (!/^[+-]\d{4}$/.test(rest.slice(date[0].length))) return 'badTimezone';
  return null;
}

const OID = /^[0-9a-f]{40}$/;

function fsckCommit(content: Uint8Array, oid: string): FsckResult {
  const links: ObjectLink[] = [];
  const fail = (rule: string, detail: string): FsckResult => ({ problem: { oid, rule, detail }, links, gitmodules: [] });
  const head = headerLines(content);
  if (head === null) return fail('unterminatedHeader', 'the headers do not end');
  if (head.nul) return fail('nulInHeader', 'a NUL byte in the headers');
  const lines = head.lines;
  let k = 0;
  const tree = lines[k]?.startsWith('tree ') ? lines[k++]!.slice(5) : null;
  if (tree === null) return fail('missingTree', 'no tree line first');
  if (!OID.test(tree)) return fail('badTreeSha1', `the tree line names "${tree}"`);
  links.push({ oid: tree, type: 'tree', via: 'tree' });
  let parents = 0;
  while (lines[k]?.startsWith('parent ')) {
    const parent = lines[k++]!.slice(7);
    if (!OID.test(parent)) return fail('badParentSha1', `a parent line names "${parent}"`);
    links.push({ oid: parent, type: 'commit', via: `parent ${++parents}` });
  }
  if (!lines[k]?.startsWith('author ')) return fail('missingAuthor', 'no author line after the parents');
  const author = identProblem(lines[k++]!.slice(7));
  if (author !== null) return fail(author, 'in the author line');
  if (lines[k]?.startsWith('author ')) return fail('multipleAuthors', 'two author lines');
  if (!lines[k]?.startsWith('committer ')) return fail('missingCommitter', 'no committer line after the author');
  const committer = identProblem(lines[k++]!.slice(10));
  if (committer !== null) return fail(committer, 'in the committer line');
  return { problem: null, links, gitmodules: [] };
}

const TYPES = new Set(['blob', 'tree', 'commit', 'tag']);

function fsckTag(content: Uint8Array, oid: string): FsckResult {
  const links: ObjectLink[] = [];
  const fail = (rule: string, detail: string): FsckResult => ({ problem: { oid, rule, detail }, links, gitmodules: [] });
  const head = headerLines(content);
  if (head === null) return fail('unterminatedHeader', 'the headers do not end');
  if (head.nul) return fail('nulInHeader', 'a NUL byte in the headers');
  const lines = head.lines;
  if (!lines[0]?.startsWith('object ')) return fail('missingObject', 'no object line first');
  const target = lines[0].slice(7);
  if (!OID.test(target)) return fail('badObjectSha1', `the object line names "${target}"`);
  if (!lines[1]?.startsWith('type ')) return fail('missingTypeEntry', 'no type line after the object');
  const type = lines[1].slice(5);
  if (!TYPES.has(type)) return fail('badType', `the type "${type}"`);
  links.push({ oid: target, type: type as ObjectType, via: 'object' });
  if (!lines[2]?.startsWith('tag ')) return fail('missingTagEntry', 'no tag line after the type');
  if (lines[3]?.startsWith('tagger ')) {
    const tagger = identProblem(lines[3].slice(7));
    if (tagger !== null) return fail(tagger, 'in the tagger line');
  }
  return { problem: null, links, gitmodules: [] };
}

/** A submodule name git refuses (submodule.c check_submodule_name): empty, or a `..` component by either separator. */
function badSubmoduleName(name: string): boolean {
  return name.length === 0 || name.split(/[/\\]/).includes('..');
}

/** fsck.c fsck_gitmodules_fn: what a `.gitmodules` blob may say (names, and urls, paths and update commands git would run). */
export function fsckGitmodules(content: Uint8Array, oid: string): FsckProblem | null {
  let config;
  try {
    config = parseGitConfig(strictUtf8.decode(content));
  } catch {
    return { oid, rule: 'gitmodulesParse', detail: 'not a config file git can read' };
  }
  for (const [key, values] of config) {
    if (!key.startsWith('submodule.')) continue;
    const last = key.lastIndexOf('.');
    if (last <= 'submodule.'.length - 1) continue;
    const name = key.slice('submodule.'.length, last);
    const variable = key.slice(last + 1);
    if (badSubmoduleName(name)) return { oid, rule: 'gitmodulesName', detail: `the submodule name ${JSON.stringify(name)}` };
    for (const value of values) {
      if (value === true) continue;
      if (variable === 'url' && (value.startsWith('-') || value.includes('\n') || value.includes('\0'))) return { oid, rule: 'gitmodulesUrl', detail: `the url of submodule ${JSON.stringify(name)} looks like an option or spans lines` };
      if (variable === 'path' && value.startsWith('-')) return { oid, rule: 'gitmodulesPath', detail: `the path of submodule ${JSON.stringify(name)} looks like an option` };
      if (variable === 'update' && value.startsWith('!')) return { oid, rule: 'gitmodulesUpdate', detail: `submodule ${JSON.stringify(name)} would run a command on update` };
    }
  }
  return null;
}
