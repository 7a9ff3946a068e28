/**
 * Turns a fixture definition (see types.d.ts) into a `git fast-import` stream.
 *
 * Pure: no I/O, no git. Everything that decides an oid (bytes, modes, paths, identities, dates,
 * messages) comes from the definition, so the same definition gives the same commits anywhere.
 * The definition is validated while replaying it, so a mistake in a fixture fails loudly here
 * instead of producing a subtly different repository.
 */

const MODES = new Set(['100644', '100755', '120000']);
const ISO_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:Z|([+-])(\d\d):(\d\d))$/;

/**
 * Replays the definition and returns the tree at its last commit, sorted by path.
 * @param {import('./types').FixtureDefinition} definition
 * @returns {import('./types').FixtureTreeEntry[]}
 */
export function finalTree(definition) {
  let tree = new Map();
  replay(definition, (_commit, next) => {
    tree = next;
  });
  return [...tree.values()].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}

/**
 * The fast-import stream for the definition; feed it to `git fast-import --done`.
 * @param {import('./types').FixtureDefinition} definition
 * @returns {Buffer}
 */
export function toFastImportStream(definition) {
  const branch = definition.branch ?? 'main';
  const chunks = [];
  const text = (s) => chunks.push(Buffer.from(s, 'utf8'));
  const data = (bytes) => {
    text(`data ${bytes.length}\n`);
    chunks.push(bytes);
    text('\n');
  };

  let mark = 0;
  replay(definition, (commit, _tree, changes) => {
    mark += 1;
    const author = commit.author ?? definition.author;
    const committer = commit.committer ?? author;
    const when = gitDate(commit.date);
    text(`commit refs/heads/${branch}\nmark :${mark}\n`);
    text(`author ${ident(author)} ${when}\ncommitter ${ident(committer)} ${when}\n`);
    data(Buffer.from(commit.message.endsWith('\n') ? commit.message : `${commit.message}\n`, 'utf8'));
    if (mark > 1) text(`from :${mark - 1}\n`);
    for (const path of changes.deleted) text(`D ${quotePath(path)}\n`);
    for (const file of changes.written) {
      text(`M ${file.mode} inline ${quotePath(file.path)}\n`);
      data(file.content);
    }
    text('\n');
  });
  text('done\n');
  return Buffer.concat(chunks);
}

/** Walks the commits, validating each, and calls `visit` with the tree after it. */
function replay(definition, visit) {
  if (!definition || !Array.isArray(definition.commits) || definition.commits.length === 0) {
    throw new Error(`fixture ${definition?.name ?? '?'}: needs at least one commit`);
  }
  const where = (i) => `fixture ${definition.name}, commit ${i + 1}`;
  let tree = new Map();
  definition.commits.forEach((commit, i) => {
    gitDate(commit.date, where(i));
    ident(commit.author ?? definition.author, where(i));
    if (commit.committer) ident(commit.committer, where(i));
    if (typeof commit.message !== 'string' || commit.message.trim() === '') {
      throw new Error(`${where(i)}: message is required`);
    }
    const next = new Map(tree);
    const deleted = [];
    for (const path of commit.deletions ?? []) {
      checkPath(path, where(i));
      if (!next.delete(path)) throw new Error(`${where(i)}: cannot delete ${path}: no such file`);
      deleted.push(path);
    }
    const written = [];
    const seen = new Set();
    for (const file of commit.files ?? []) {
      const entry = toEntry(file, where(i));
      if (seen.has(entry.path)) throw new Error(`${where(i)}: ${entry.path} is listed twice`);
      seen.add(entry.path);
      next.set(entry.path, entry);
      written.push(entry);
    }
    checkNoFileDirClash(next, where(i));
    tree = next;
    visit(commit, next, { deleted, written });
  });
}

/** @returns {import('./types').FixtureTreeEntry} */
function toEntry(file, where) {
  checkPath(file.path, where);
  const mode = file.mode ?? '100644';
  if (!MODES.has(mode)) throw new Error(`${where}: ${file.path}: unsupported mode ${mode}`);
  if ((file.text === undefined) === (file.base64 === undefined)) {
    throw new Error(`${where}: ${file.path}: give exactly one of text or base64`);
  }
  const content = file.text !== undefined ? Buffer.from(file.text, 'utf8') : Buffer.from(file.base64, 'base64');
  if (file.base64 !== undefined && content.toString('base64') !== file.base64.replace(/\s+/g, '')) {
    throw new Error(`${where}: ${file.path}: base64 is not canonical`);
  }
  if (mode === '120000' && (content.length === 0 || content.includes(0))) {
    throw new Error(`${where}: ${file.path}: a symlink needs a non-empty target without NUL`);
  }
  return { path: file.path, mode, content };
}

/** Paths as git stores them: relative, slash-separated, no empty, `.`, `..` or `.git` part. */
function checkPath(path, where) {
  const ok =
    typeof path === 'string' &&
    path.length > 0 &&
    !path.includes('\0') &&
    path.split('/').every((part) => part !== '' && part !== '.' && part !== '..' && part.toLowerCase() !== '.git');
  if (!ok) throw new Error(`${where}: invalid path ${JSON.stringify(path)}`);
}

/** A path cannot be both a file and a directory in one tree. */
function checkNoFileDirClash(tree, where) {
  for (const path of tree.keys()) {
    const parts = path.split('/');
    for (let n = 1; n < parts.length; n++) {
      const dir = parts.slice(0, n).join('/');
      if (tree.has(dir)) throw new Error(`${where}: ${dir} is a file and also the directory of ${path}`);
    }
  }
}

function ident(who, where = 'fixture') {
  const bad = (s) => typeof s !== 'string' || s === '' || /[<>\n]/.test(s);
  if (!who || bad(who.name) || bad(who.email)) throw new Error(`${where}: invalid identity ${JSON.stringify(who)}`);
  return `${who.name} <${who.email}>`;
}

/** '2024-01-01T09:00:00+02:00' -> '1704092400 +0200' (git's raw date format). */
function gitDate(iso, where = 'fixture') {
  const m = typeof iso === 'string' ? ISO_DATE.exec(iso) : null;
  const seconds = m ? Date.parse(iso) / 1000 : NaN;
  if (!m || !Number.isInteger(seconds)) throw new Error(`${where}: invalid date ${JSON.stringify(iso)}`);
  const zone = m[1] ? `${m[1]}${m[2]}${m[3]}` : '+0000';
  return `${seconds} ${zone}`;
}

/** fast-import reads a path to the end of the line unless it starts with a quote. */
function quotePath(path) {
  if (!path.startsWith('"') && !path.includes('\n')) return path;
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}
