// Renames an identifier across the repository's source files: every whole-word occurrence of
// `from` becomes `to` in the files under `dir` with one of `extensions`. Runs in Forge's
// QuickJS sandbox: the only way out is `vfs`, and every path goes through Forge's path sandbox.
export const description =
  'Rename an identifier (whole words only) in every file under `dir` whose name ends with one of `extensions`. ' +
  'Returns the files changed with their number of replacements.';

export const schema = {
  type: 'object',
  properties: {
    from: { type: 'string', description: 'The identifier to rename, e.g. "formatPrice".' },
    to: { type: 'string', description: 'The new identifier, e.g. "formatMoney".' },
    dir: { type: 'string', description: 'Directory to search, relative to the repository root ("" for all).' },
    extensions: { type: 'array', items: { type: 'string' }, description: 'File name endings to include, e.g. [".js", ".ts"].' },
  },
  required: ['from', 'to', 'dir', 'extensions'],
  additionalProperties: false,
};

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

async function filesUnder(vfs, dir, extensions, out) {
  for (const entry of await vfs.list(dir)) {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.type === 'directory') await filesUnder(vfs, path, extensions, out);
    else if (entry.type === 'file' && extensions.some((ext) => path.endsWith(ext))) out.push(path);
  }
  return out;
}

export async function execute(vfs, args) {
  if (!IDENTIFIER.test(args.from) || !IDENTIFIER.test(args.to)) throw new Error('from and to must be identifiers');
  // Whole words: not preceded or followed by an identifier character.
  const pattern = new RegExp(`(?<![A-Za-z0-9_$])${args.from.replace(/\$/g, '\\$')}(?![A-Za-z0-9_$])`, 'g');
  const changed = [];
  for (const path of await filesUnder(vfs, args.dir, args.extensions, [])) {
    const text = await vfs.readFile(path);
    let count = 0;
    const next = text.replace(pattern, () => {
      count++;
      return args.to;
    });
    if (count > 0) {
      await vfs.writeFile(path, next);
      changed.push({ path, replacements: count });
    }
  }
  return { changed, files: changed.length };
}
