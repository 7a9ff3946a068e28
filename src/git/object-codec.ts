/**
 * Git object encoding: the loose-object frame and the tree, commit and tag formats.
 * Pure (no I/O, no hashing): the object store adds sha1 and zlib around it.
 */
import { ForgeError } from '../errors';
import { toHex, type ByteText } from './platform';
import { isTreeMode, symlinkNameProblem, treeNameProblem, type TreeMode } from './tree-names';

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

export interface TreeEntry {
  mode: TreeMode;
  name: string;
  oid: string;
}

export interface Signature {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** Minutes east of UTC (the sign git prints: +0100 is 60). */
  timezoneOffset: number;
}

export interface Commit {
  tree: string;
  parents: string[];
  author: Signature;
  committer: Signature;
  message: string;
  /** Headers other than tree/parent/author/committer (gpgsig, encoding, mergetag...), kept verbatim. */
  extraHeaders?: Array<[string, string]>;
}

export interface Tag {
  object: string;
  type: ObjectType;
  tag: string;
  tagger?: Signature;
  message: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/** The loose-object header: "<type> <size>\0". */
export function objectHeader(type: ObjectType, size: number): Uint8Array {
  return encoder.encode(`${type} ${size}\0`);
}

export function frameObject(type: ObjectType, content: Uint8Array): Uint8Array {
  const header = objectHeader(type, content.length);
  const out = new Uint8Array(header.length + content.length);
  out.set(header, 0);
  out.set(content, header.length);
  return out;
}

export function unframeObject(raw: Uint8Array, oid: string): { type: ObjectType; content: Uint8Array } {
  const nul = raw.indexOf(0);
  if (nul < 0) throw corrupt(oid, 'no header');
  const header = decoder.decode(raw.subarray(0, nul));
  const space = header.indexOf(' ');
  const type = header.slice(0, space);
  const size = Number(header.slice(space + 1));
  if (!isObjectType(type) || !Number.isInteger(size)) throw corrupt(oid, `bad header "${header}"`);
  const content = raw.subarray(nul + 1);
  if (content.length !== size) throw corrupt(oid, `size ${content.length} does not match header ${size}`);
  return { type, content };
}

export function isObjectType(type: string): type is ObjectType {
  return type === 'blob' || type === 'tree' || type === 'commit' || type === 'tag';
}

export function corrupt(oid: string, detail: string): ForgeError {
  return new ForgeError('OBJECT_CORRUPT', `Object ${oid} is corrupt: ${detail}.`, { data: { oid } });
}

/** A tree entry name that is not UTF-8: git allows it, the engine's string paths cannot hold it. */
export function nameNotUtf8(oid: string): ForgeError {
  return new ForgeError('TREE_ENTRY_INVALID', `Tree ${oid} has an entry whose name is not UTF-8; the engine cannot represent it.`, { data: { oid } });
}

/** A name's UTF-8, strictly; latin1 (one char per byte) is the same string when all bytes are ASCII. */
function decodeName(content: Uint8Array, start: number, end: number, oid: string, latin1: string | undefined): string {
  let ascii = true;
  for (let k = start; k < end; k++) {
    if (content[k]! >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return latin1 !== undefined ? latin1.slice(start, end) : asciiString(content, start, end);
  try {
    return strictDecoder.decode(content.subarray(start, end));
  } catch {
    throw nameNotUtf8(oid);
  }
}

function asciiString(content: Uint8Array, start: number, end: number): string {
  let out = '';
  for (let k = start; k < end; k++) out += String.fromCharCode(content[k]!);
  return out;
}

/** The mode as the engine spells it (git writes trees as "40000"), as a constant string: compared often. */
function storedMode(written: string): TreeMode | null {
  switch (written) {
    case '100644':
      return '100644';
    case '40000':
    case '040000':
      return '040000';
    case '100755':
      return '100755';
    case '120000':
      return '120000';
    case '160000':
      return '160000';
    default:
      return null;
  }
}

/**
 * With `text` (native whole-buffer decoding, see ByteText), a tree becomes one hex and one latin1
 * string that its entries slice: about 2.5x faster than building each entry's strings byte by byte.
 */
export function parseTree(content: Uint8Array, oid = '?', text?: ByteText): TreeEntry[] {
  const latin1 = text?.latin1(content);
  const hex = text?.hex(content);
  const entries: TreeEntry[] = [];
  let i = 0;
  while (i < content.length) {
    const space = content.indexOf(0x20, i);
    const nul = content.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > content.length) throw corrupt(oid, 'truncated tree entry');
    const written = latin1 !== undefined ? latin1.slice(i, space) : asciiString(content, i, space);
    const mode = storedMode(written);
    if (mode === null) throw corrupt(oid, `unknown mode ${written}`);
    const name = decodeName(content, space + 1, nul, oid, latin1);
    entries.push({ mode, name, oid: hex !== undefined ? hex.slice(2 * nul + 2, 2 * nul + 42) : toHex(content.subarray(nul + 1, nul + 21)) });
    i = nul + 21;
  }
  return entries;
}

/** The entries of one tree, checked and in git's order, and its bytes. */
export interface EncodedTree {
  content: Uint8Array;
  sorted: TreeEntry[];
}

/** Byte value of two lowercase hex digits by their char codes ((c1 << 7) | c2, both ASCII); -1 if not hex. */
const HEX_PAIR = new Int16Array(1 << 14).fill(-1);
for (let a = 0; a < 16; a++) {
  for (let b = 0; b < 16; b++) HEX_PAIR[('0123456789abcdef'.charCodeAt(a) << 7) | '0123456789abcdef'.charCodeAt(b)] = (a << 4) | b;
}

const OID_HEX = /^[0-9a-f]{40}$/;

/** Writes a 40-hex oid as 20 bytes at `offset`; false (nothing written) when it is not lowercase hex. */
function writeOid(oid: string, out: Uint8Array, offset: number): boolean {
  if (!OID_HEX.test(oid)) return false;
  for (let k = 0; k < 40; k += 2) out[offset++] = HEX_PAIR[(oid.charCodeAt(k) << 7) | oid.charCodeAt(k + 1)]!;
  return true;
}

function invalidOid(entry: TreeEntry): ForgeError {
  return new ForgeError('TREE_ENTRY_INVALID', `Tree entry ${JSON.stringify(entry.name)} has invalid oid ${entry.oid}.`, { data: { name: entry.name } });
}

/** The mode as git writes it in a tree. */
function writtenMode(mode: TreeMode): string {
  return mode === '040000' ? '40000' : mode;
}

/** Why git's fsck would reject this entry (name, symlink name, mode, oid length), as an error; null when fine. */
function entryProblem(entry: TreeEntry): ForgeError | null {
  const problem = treeNameProblem(entry.name);
  if (problem !== null) {
    return new ForgeError('TREE_ENTRY_INVALID', `Tree entry name ${JSON.stringify(entry.name)} is not allowed by git (${problem}).`, { data: { name: entry.name, problem } });
  }
  if (!isTreeMode(entry.mode)) {
    return new ForgeError('TREE_ENTRY_INVALID', `Tree entry ${JSON.stringify(entry.name)} has invalid mode ${entry.mode}.`, { data: { name: entry.name, mode: entry.mode } });
  }
  const linkProblem = entry.mode === '120000' ? symlinkNameProblem(entry.name) : null;
  if (linkProblem !== null) {
    return new ForgeError('TREE_ENTRY_INVALID', `Tree entry ${JSON.stringify(entry.name)} is not allowed by git: ${linkProblem}.`, { data: { name: entry.name, mode: entry.mode, problem: 'symlink' } });
  }
  // The digits themselves are checked as they are written (writeOid).
  return entry.oid.length === 40 ? null : invalidOid(entry);
}

/** git's order: bytes of the name, a directory's name followed by "/". */
function compareNames(a: Uint8Array, aDir: boolean, b: Uint8Array, bDir: boolean): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  const ac = a.length > n ? a[n]! : aDir ? 0x2f : -1;
  const bc = b.length > n ? b[n]! : bDir ? 0x2f : -1;
  if (ac !== bc) return ac - bc;
  return a.length - b.length;
}

const NON_ASCII = /[^\x00-\x7f]/;
const SURROGATE = /[\ud800-\udfff]/;

/** `a` before `b` in git's order, for names without surrogates (compared as UTF-16, equal to UTF-8 order). */
function sortsBefore(a: TreeEntry, b: TreeEntry): boolean {
  const aDir = a.mode === '040000';
  const bDir = b.mode === '040000';
  if (!aDir && !bDir) return a.name < b.name;
  const x = a.name;
  const y = b.name;
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const cx = x.charCodeAt(i);
    const cy = y.charCodeAt(i);
    if (cx !== cy) return cx < cy;
  }
  // One name is a prefix of the other: the next char, "/" for a directory's end.
  const cx = x.length > n ? x.charCodeAt(n) : aDir ? 0x2f : -1;
  const cy = y.length > n ? y.charCodeAt(n) : bDir ? 0x2f : -1;
  return cx < cy;
}

/**
 * Validates as git's fsck does, puts the entries in git's order and serializes them. Throws
 * TREE_ENTRY_INVALID. Names without UTF-16 surrogates sort as strings (a directory as "name/"):
 * UTF-16 code unit order is UTF-8 byte order below U+D800 and above U+DFFF, so only names with
 * characters outside the BMP are compared as bytes. Input already in order (trees read and
 * changed) is checked in one pass and not sorted.
 */
export function encodeTree(entries: readonly TreeEntry[], text?: ByteText): EncodedTree {
  const n = entries.length;
  // Per entry: its UTF-8 bytes when the name is not ASCII (null: one byte per char).
  const utf8 = new Array<Uint8Array | null>(n);
  const seen = new Set<string>();
  let surrogates = false;
  let ordered = true;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const entry = entries[i]!;
    const problem = entryProblem(entry);
    if (problem !== null) throw problem;
    // A file and a directory of the same name would both sort fine but collide on checkout.
    if (seen.has(entry.name)) {
      throw new ForgeError('TREE_ENTRY_INVALID', `Tree has two entries named ${JSON.stringify(entry.name)}.`, { data: { name: entry.name, problem: 'duplicate' } });
    }
    seen.add(entry.name);
    const name = entry.name;
    let bytes: Uint8Array | null = null;
    if (NON_ASCII.test(name)) {
      bytes = encoder.encode(name);
      surrogates ||= SURROGATE.test(name);
    }
    utf8[i] = bytes;
    if (i > 0 && ordered && !sortsBefore(entries[i - 1]!, entry)) ordered = false;
    total += writtenMode(entry.mode).length + 1 + (bytes === null ? name.length : bytes.length) + 1 + 20;
  }
  let order: number[] | null = null;
  if (!ordered || surrogates) {
    order = Array.from({ length: n }, (_, i) => i);
    if (surrogates) {
      const bytesOf = (i: number) => utf8[i] ?? encoder.encode(entries[i]!.name);
      order.sort((a, b) => compareNames(bytesOf(a), entries[a]!.mode === '040000', bytesOf(b), entries[b]!.mode === '040000'));
    } else {
      order.sort((a, b) => (sortsBefore(entries[a]!, entries[b]!) ? -1 : 1));
    }
  }
  const content = new Uint8Array(total);
  const sorted = new Array<TreeEntry>(n);
  for (let j = 0; j < n; j++) sorted[j] = entries[order === null ? j : order[j]!]!;
  // With native hex (Node), all oids become bytes in one call: a byte loop per oid, run by code
  // the JIT has not warmed up, was the largest cost of a small turn's commit in a fresh process.
  const oids = text !== undefined ? oidBytes(sorted, text) : null;
  let offset = 0;
  for (let j = 0; j < n; j++) {
    const entry = sorted[j]!;
    const i = order === null ? j : order[j]!;
    const mode = writtenMode(entry.mode);
    for (let k = 0; k < mode.length; k++) content[offset++] = mode.charCodeAt(k);
    content[offset++] = 0x20;
    const bytes = utf8[i];
    if (bytes === null) {
      const name = entry.name;
      for (let k = 0; k < name.length; k++) content[offset++] = name.charCodeAt(k);
    } else {
      content.set(bytes!, offset);
      offset += bytes!.length;
    }
    content[offset++] = 0;
    if (oids !== null) content.set(oids.subarray(j * 20, j * 20 + 20), offset);
    else if (!writeOid(entry.oid, content, offset)) throw invalidOid(entry);
    offset += 20;
  }
  return { content, sorted };
}

/** The entries' oids as bytes, 20 per entry, checked (lowercase hex, 40 digits each). */
function oidBytes(entries: readonly TreeEntry[], text: ByteText): Uint8Array {
  for (const entry of entries) if (!OID_HEX.test(entry.oid)) throw invalidOid(entry);
  const bytes = text.hexToBytes(entries.map((e) => e.oid).join(''));
  // A plain view: Node's Buffer would route subarray through its own slower wrapper.
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Validates as git's fsck does and serializes in git's order. Throws TREE_ENTRY_INVALID. */
export function serializeTree(entries: readonly TreeEntry[]): Uint8Array {
  return encodeTree(entries).content;
}

export function formatSignature(sig: Signature): string {
  const sign = sig.timezoneOffset < 0 ? '-' : '+';
  const abs = Math.abs(sig.timezoneOffset);
  const tz = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  return `${sig.name} <${sig.email}> ${sig.timestamp} ${tz}`;
}

export function parseSignature(text: string): Signature {
  const match = /^(.*?) ?<([^>]*)> (-?\d+) ([+-])(\d\d)(\d\d)$/.exec(text);
  if (!match) return { name: text, email: '', timestamp: 0, timezoneOffset: 0 };
  const minutes = Number(match[5]) * 60 + Number(match[6]);
  return { name: match[1]!, email: match[2]!, timestamp: Number(match[3]), timezoneOffset: match[4] === '-' ? -minutes : minutes };
}

/** Rejects what git's fsck would flag in an identity (angle brackets or newlines in the name or email). */
export function validateSignature(sig: Signature, role: string): void {
  if (/[<>\n]/.test(sig.name) || /[<>\n]/.test(sig.email)) {
    throw new ForgeError('INVALID_ARGUMENT', `The ${role} name and email must not contain '<', '>' or newlines.`, { data: { role } });
  }
  if (!Number.isInteger(sig.timestamp) || sig.timestamp < 0) {
    throw new ForgeError('INVALID_ARGUMENT', `The ${role} timestamp must be a non-negative whole number of seconds.`, { data: { role } });
  }
}

function parseHeaders(text: string): { headers: Array<[string, string]>; message: string } {
  const end = text.indexOf('\n\n');
  const head = end < 0 ? text : text.slice(0, end);
  const message = end < 0 ? '' : text.slice(end + 2);
  const headers: Array<[string, string]> = [];
  for (const line of head.split('\n')) {
    if (line.startsWith(' ') && headers.length > 0) {
      headers[headers.length - 1]![1] += '\n' + line.slice(1);
    } else if (line.length > 0) {
      const space = line.indexOf(' ');
      headers.push(space < 0 ? [line, ''] : [line.slice(0, space), line.slice(space + 1)]);
    }
  }
  return { headers, message };
}

export function parseCommit(content: Uint8Array, oid = '?'): Commit {
  const { headers, message } = parseHeaders(decoder.decode(content));
  let tree = '';
  const parents: string[] = [];
  let author: Signature | undefined;
  let committer: Signature | undefined;
  const extraHeaders: Array<[string, string]> = [];
  for (const [key, value] of headers) {
    if (key === 'tree') tree = value;
    else if (key === 'parent') parents.push(value);
    else if (key === 'author') author = parseSignature(value);
    else if (key === 'committer') committer = parseSignature(value);
    else extraHeaders.push([key, value]);
  }
  if (!tree || !author || !committer) throw corrupt(oid, 'commit lacks tree, author or committer');
  const commit: Commit = { tree, parents, author, committer, message };
  if (extraHeaders.length > 0) commit.extraHeaders = extraHeaders;
  return commit;
}

/** What a walk of the commit graph needs of a commit: its parents and committer time. */
export interface CommitLinks {
  /** The root tree (blame's walk reads the file at every commit). */
  tree: string;
  parents: string[];
  /** Committer time, seconds since the epoch. */
  time: number;
}

/**
 * A commit's parents and committer time from its header lines alone, without decoding the
 * message or parsing signatures: a merge-base walk may visit thousands of commits, and session
 * commits carry long messages. Checked like parseCommit where it reads.
 */
/** Bytes [start, end) as one char per byte (header lines are ASCII), without spreading a subarray. */
function latin1Prefix(content: Uint8Array, start: number, end: number): string {
  let out = '';
  for (let i = start; i < end; i++) out += String.fromCharCode(content[i]!);
  return out;
}

export function parseCommitLinks(content: Uint8Array, oid = '?'): CommitLinks {
  const parents: string[] = [];
  let tree: string | null = null;
  let start = 0;
  while (start < content.length) {
    let end = content.indexOf(0x0a, start);
    if (end === -1) end = content.length;
    if (end === start) break; // the blank line before the message
    const line = latin1Prefix(content, start, Math.min(end, start + 64));
    if (line.startsWith('tree ') && tree === null) {
      tree = line.slice(5, 45);
      if (end - start !== 45 || !/^[0-9a-f]{40}$/.test(tree)) throw corrupt(oid, 'the tree line is not an object id');
    } else if (line.startsWith('parent ')) {
      const parent = line.slice(7, 47);
      if (end - start !== 47 || !/^[0-9a-f]{40}$/.test(parent)) throw corrupt(oid, 'a parent line is not an object id');
      parents.push(parent);
    } else if (line.startsWith('committer ')) {
      // "... <email> <seconds> <+hhmm>": the number before the last space.
      const tail = latin1Prefix(content, Math.max(start, end - 40), end);
      const match = / (-?\d+) [+-]\d{4}$/.exec(tail);
      if (match === null) throw corrupt(oid, 'the committer line has no time');
      if (tree === null) break;
      return { tree, parents, time: Number(match[1]) };
    }
    start = end + 1;
  }
  throw corrupt(oid, 'commit lacks tree, author or committer');
}

export function serializeCommit(commit: Commit): Uint8Array {
  validateSignature(commit.author, 'author');
  validateSignature(commit.committer, 'committer');
  let text = `tree ${commit.tree}\n`;
  for (const parent of commit.parents) text += `parent ${parent}\n`;
  text += `author ${formatSignature(commit.author)}\n`;
  text += `committer ${formatSignature(commit.committer)}\n`;
  for (const [key, value] of commit.extraHeaders ?? []) text += `${key} ${value.replace(/\n/g, '\n ')}\n`;
  text += '\n' + commit.message;
  return encoder.encode(text);
}

export function parseTag(content: Uint8Array, oid = '?'): Tag {
  const { headers, message } = parseHeaders(decoder.decode(content));
  const get = (key: string) => headers.find(([k]) => k === key)?.[1];
  const object = get('object');
  const type = get('type');
  if (!object || !type || !isObjectType(type)) throw corrupt(oid, 'tag lacks object or type');
  const tagger = get('tagger');
  const tag: Tag = { object, type, tag: get('tag') ?? '', message };
  if (tagger !== undefined) tag.tagger = parseSignature(tagger);
  return tag;
}
