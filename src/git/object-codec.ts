/**
 * Git object encoding: the loose-object frame and the tree, commit and tag formats.
 * Pure (no I/O, no hashing): the object store adds sha1 and zlib around it.
 */
import { ForgeError } from '../errors';
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

export function frameObject(type: ObjectType, content: Uint8Array): Uint8Array {
  const header = encoder.encode(`${type} ${content.length}\0`);
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

function corrupt(oid: string, detail: string): ForgeError {
  return new ForgeError('OBJECT_CORRUPT', `Object ${oid} is corrupt: ${detail}.`, { data: { oid } });
}

const BYTE_HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Tree entry names are nearly always ASCII: build those directly, decode the rest strictly. */
function decodeName(content: Uint8Array, start: number, end: number, oid: string): string {
  let ascii = '';
  for (let k = start; k < end; k++) {
    const byte = content[k]!;
    if (byte >= 0x80) {
      try {
        return strictDecoder.decode(content.subarray(start, end));
      } catch {
        throw new ForgeError('TREE_ENTRY_INVALID', `Tree ${oid} has an entry whose name is not UTF-8; the engine cannot represent it.`, { data: { oid } });
      }
    }
    ascii += String.fromCharCode(byte);
  }
  return ascii;
}

export function parseTree(content: Uint8Array, oid = '?'): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let i = 0;
  while (i < content.length) {
    const space = content.indexOf(0x20, i);
    const nul = content.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > content.length) throw corrupt(oid, 'truncated tree entry');
    let mode = '';
    for (let k = i; k < space; k++) mode += String.fromCharCode(content[k]!);
    if (mode.length === 5) mode = '0' + mode; // git writes trees as "40000"
    if (!isTreeMode(mode)) throw corrupt(oid, `unknown mode ${mode}`);
    const name = decodeName(content, space + 1, nul, oid);
    let hex = '';
    for (let k = nul + 1; k < nul + 21; k++) hex += BYTE_HEX[content[k]!]!;
    entries.push({ mode, name, oid: hex });
    i = nul + 21;
  }
  return entries;
}

/** UTF-8 bytes of a name; ASCII names (the usual case) without going through TextEncoder. */
function nameBytes(name: string): Uint8Array {
  const out = new Uint8Array(name.length);
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c > 0x7f) return encoder.encode(name);
    out[i] = c;
  }
  return out;
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

const MODE_BYTES: Record<string, Uint8Array> = {};
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX_VALUE['0123456789abcdef'.charCodeAt(i)] = i;

function keyedInGitOrder(entries: readonly TreeEntry[]): Array<{ entry: TreeEntry; bytes: Uint8Array; dir: boolean }> {
  // Each name is encoded once; the sort compares bytes, a directory's name as if followed by "/".
  const keyed = entries.map((entry) => ({ entry, bytes: nameBytes(entry.name), dir: entry.mode === '040000' }));
  return keyed.sort((a, b) => compareNames(a.bytes, a.dir, b.bytes, b.dir));
}

/** Tree entries in git's order (as they are stored). */
export function sortTreeEntries(entries: readonly TreeEntry[]): TreeEntry[] {
  return keyedInGitOrder(entries).map((k) => k.entry);
}

/** Validates as git's fsck does and serializes in git's order. Throws TREE_ENTRY_INVALID. */
export function serializeTree(entries: readonly TreeEntry[]): Uint8Array {
  const keyed = keyedInGitOrder(entries);
  const seen = new Set<string>();
  let total = 0;
  for (const { entry, bytes } of keyed) {
    const problem = treeNameProblem(entry.name);
    if (problem !== null) {
      throw new ForgeError('TREE_ENTRY_INVALID', `Tree entry name ${JSON.stringify(entry.name)} is not allowed by git (${problem}).`, {
        data: { name: entry.name, problem },
      });
    }
    if (!isTreeMode(entry.mode)) {
      throw new ForgeError('TREE_ENTRY_INVALID', `Tree entry ${JSON.stringify(entry.name)} has invalid mode ${entry.mode}.`, { data: { name: entry.name, mode: entry.mode } });
    }
    const linkProblem = entry.mode === '120000' ? symlinkNameProblem(entry.name) : null;
    if (linkProblem !== null) {
      throw new ForgeError('TREE_ENTRY_INVALID', `Tree entry ${JSON.stringify(entry.name)} is not allowed by git: ${linkProblem}.`, {
        data: { name: entry.name, mode: entry.mode, problem: 'symlink' },
      });
    }
    let validOid = entry.oid.length === 40;
    for (let k = 0; validOid && k < 40; k++) validOid = (HEX_VALUE[entry.oid.charCodeAt(k)] ?? -1) >= 0;
    if (!validOid) {
      throw new ForgeError('TREE_ENTRY_INVALID', `Tree entry ${JSON.stringify(entry.name)} has invalid oid ${entry.oid}.`, { data: { name: entry.name } });
    }
    // A file and a directory of the same name would both sort fine but collide on checkout.
    if (seen.has(entry.name)) {
      throw new ForgeError('TREE_ENTRY_INVALID', `Tree has two entries named ${JSON.stringify(entry.name)}.`, { data: { name: entry.name, problem: 'duplicate' } });
    }
    seen.add(entry.name);
    total += (entry.mode === '040000' ? 5 : 6) + 1 + bytes.length + 1 + 20;
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const { entry, bytes } of keyed) {
    const mode = (MODE_BYTES[entry.mode] ??= encoder.encode(entry.mode === '040000' ? '40000' : entry.mode));
    out.set(mode, offset);
    offset += mode.length;
    out[offset++] = 0x20;
    out.set(bytes, offset);
    offset += bytes.length;
    out[offset++] = 0;
    for (let k = 0; k < 40; k += 2) out[offset++] = (HEX_VALUE[entry.oid.charCodeAt(k)]! << 4) | HEX_VALUE[entry.oid.charCodeAt(k + 1)]!;
  }
  return out;
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
