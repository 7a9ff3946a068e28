// Adds a license header comment to every file under `dir` with one of `extensions` that does
// not start with it yet (after a "#!" line, which must stay first). Idempotent: a second call
// changes nothing. Runs in Forge's QuickJS sandbox.
export const description =
  'Add a license header comment (`// ` + each line of `header`) at the top of every file under `dir` ending with one of `extensions` ' +
  'that does not have it yet. A "#!" first line stays first. Returns the files changed.';

export const schema = {
  type: 'object',
  properties: {
    header: { type: 'string', description: 'The header text, e.g. "SPDX-License-Identifier: MIT". Several lines allowed.' },
    dir: { type: 'string', description: 'Directory to process, relative to the repository root ("" for all).' },
    extensions: { type: 'array', items: { type: 'string' }, description: 'File name endings to include, e.g. [".js"].' },
  },
  required: ['header', 'dir', 'extensions'],
  additionalProperties: false,
};

async function filesUnder(vfs, dir, extensions, out) {
  for (const entry of await vfs.list(dir)) {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.type === 'directory') await filesUnder(vfs, path, extensions, out);
    else if (entry.type === 'file' && extensions.some((ext) => path.endsWith(ext))) out.push(path);
  }
  return out;
}

export async function execute(vfs, args) {
  const comment = args.header
    .replace(/\r\n/g, '\n')
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => (line === '' ? '//' : `// ${line}`))
    .join('\n');
  const changed = [];
  const skipped = [];
  for (const path of await filesUnder(vfs, args.dir, args.extensions, [])) {
    const text = await vfs.readFile(path);
    const shebang = text.startsWith('#!') ? text.slice(0, text.indexOf('\n') + 1 || text.length) : '';
    const body = text.slice(shebang.length);
    if (body.startsWith(comment)) {
      skipped.push(path);
      continue;
    }
    await vfs.writeFile(path, `${shebang}${comment}\n${body.startsWith('\n') ? '' : '\n'}${body}`);
    changed.push(path);
  }
  return { changed, alreadyHadHeader: skipped };
}
