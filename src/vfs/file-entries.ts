/**
 * A flattened file listing (TreeFiles columns) as the views' entries: the oids become one hex
 * string and the paths one decoded string, which every entry then slices.
 */
import { FILE_MODES, isUtf8, toHex, type TreeFiles } from '../git';
import { entryType } from './entry-type';
import type { VfsEntry } from './types';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const TYPES = FILE_MODES.map(entryType);

/** Throws (a TypeError) when the paths are not UTF-8 or not `count` of them, or a mode code is unknown. */
export function fileEntries(files: TreeFiles, hex: (bytes: Uint8Array) => string = toHex): VfsEntry[] {
  const { count } = files;
  if (count === 0) return [];
  const oids = hex(files.oids);
  const paths = decoder.decode(files.paths).split('\0');
  if (paths.length !== count || oids.length !== count * 40) throw new TypeError(`a file listing of ${count} files holds ${paths.length} paths and ${oids.length / 40} oids`);
  const out: VfsEntry[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const code = files.modes[i]!;
    const mode = FILE_MODES[code];
    if (mode === undefined) throw new TypeError(`unknown file mode code ${code}`);
    const path = paths[i]!;
    out[i] = { name: path.slice(path.lastIndexOf('/') + 1), path, type: TYPES[code]!, mode, oid: oids.slice(i * 40, i * 40 + 40) };
  }
  return out;
}

/**
 * Just the paths, as UTF-8 bytes, each but the last followed by the `separator` byte: for
 * printing a listing, with no object or string per file. Throws as fileEntries does.
 */
export function filePathBytes(files: TreeFiles, separator: number, isUtf8Check: (bytes: Uint8Array) => boolean = isUtf8): Uint8Array {
  const out = new Uint8Array(files.paths);
  let separators = 0;
  // indexOf, a builtin, rather than a loop over every byte: in a fresh process (forge ls) the
  // loop over 1.5 MB runs before V8 has compiled it.
  for (let i = out.indexOf(0); i >= 0; i = out.indexOf(0, i + 1)) {
    out[i] = separator;
    separators++;
  }
  const expected = files.count === 0 ? out.length === 0 : separators === files.count - 1;
  if (!expected || !isUtf8Check(files.paths)) throw new TypeError(`a file listing of ${files.count} files holds ${separators + 1} paths, or paths that are not UTF-8`);
  return out;
}
