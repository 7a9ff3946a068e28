// Issue 25: the README's TypeScript examples compile for a user whatever maintained TypeScript and
// @types/node they have. Installs, into temporary projects, the oldest and newest TypeScript major
// (5, latest) and @types/node (20, the oldest Node this package supports; latest) from the npm
// registry, with this package as `npm pack` would ship it (dist/ must be built), then runs
// `tsc --noEmit --strict` on the README's ```ts blocks under moduleResolution node16 and bundler:
// the library example (Node) as one file, the browser examples as another (each block in a scope
// nested in the previous one's, as the README reads them in sequence). Nothing is cached or written
// in the repository. Run by .ci/run; `node scripts/check-types-matrix.mjs` (exit 1 on a failure).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const TYPESCRIPT = ['5', 'latest'];
const TYPES_NODE = ['20', 'latest'];
/** What the browser examples import besides forge-engine, linked from this clone's node_modules. */
const BROWSER_PACKAGES = ['@isomorphic-git/lightning-fs', 'isomorphic-git'];

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error', npm_config_fund: 'false', npm_config_audit: 'false' } });
  return { status: result.status ?? -1, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() };
}

/** The README's ```ts blocks: the library section's, and the browser section's in order. */
export function readmeExamples(readme = readFileSync(join(ROOT, 'README.md'), 'utf8')) {
  const section = (title) => {
    const start = readme.indexOf(`\n## ${title}`);
    if (start < 0) throw new Error(`README.md has no "## ${title}" section`);
    const end = readme.indexOf('\n## ', start + 1);
    return [...readme.slice(start, end < 0 ? undefined : end).matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  };
  return { node: section('The library'), browser: section('In a browser') };
}

/** Blocks that read as one sequence: imports first, each later block in a scope inside the previous one. */
export function asOneModule(blocks) {
  const imports = [];
  const bodies = blocks.map((block) =>
    block
      .split('\n')
      .filter((line) => (/^import /.test(line) ? (imports.push(line), false) : true))
      .join('\n'),
  );
  return `${imports.join('\n')}\n${bodies.map((body) => `{\n${body}\n`).join('')}${'}\n'.repeat(bodies.length)}export {};\n`;
}

function packedFiles() {
  const result = run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT);
  if (result.status !== 0) throw new Error(`npm pack --dry-run failed: ${result.output}`);
  return JSON.parse(result.output.slice(result.output.indexOf('['))).flatMap((p) => p.files.map((f) => f.path));
}

/**
 * One project, one `npm install` of every version under an alias (ts-5, ts-latest, types-node-20,
 * ...): each combination then links node_modules/@types/node to its version and runs its tsc.
 */
function consumer(files, examples) {
  const dir = mkdtempSync(join(tmpdir(), 'forge-types-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const specs = [...TYPESCRIPT.map((v) => `ts-${v}@npm:typescript@${v}`), ...TYPES_NODE.map((v) => `types-node-${v}@npm:@types/node@${v}`)];
  const install = run('npm', ['install', '--ignore-scripts', '--no-package-lock', ...specs], dir);
  if (install.status !== 0) throw new Error(`npm install ${specs.join(' ')} failed: ${install.output}`);
  const target = join(dir, 'node_modules', 'forge-engine');
  for (const file of files) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    cpSync(join(ROOT, file), join(target, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(target, 'node_modules'), 'dir');
  for (const name of BROWSER_PACKAGES) {
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
  }
  mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
  writeFileSync(join(dir, 'node-example.ts'), `${examples.node.join('\n')}\nexport {};\n`);
  writeFileSync(join(dir, 'browser-example.ts'), asOneModule(examples.browser));
  return dir;
}

const RESOLUTIONS = {
  node16: { module: 'Node16', moduleResolution: 'Node16' },
  bundler: { module: 'ESNext', moduleResolution: 'Bundler' },
};

function versionOf(dir, name) {
  return JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
}

export function checkTypesMatrix({ log = console.log } = {}) {
  const dir = consumer(packedFiles(), readmeExamples());
  const failures = [];
  try {
    for (const typescript of TYPESCRIPT) {
      for (const typesNode of TYPES_NODE) {
        const typesLink = join(dir, 'node_modules', '@types', 'node');
        rmSync(typesLink, { force: true });
        symlinkSync(join(dir, 'node_modules', `types-node-${typesNode}`), typesLink, 'dir');
        const label = `typescript ${versionOf(dir, `ts-${typescript}`)}, @types/node ${versionOf(dir, `types-node-${typesNode}`)}`;
        for (const [name, resolution] of Object.entries(RESOLUTIONS)) {
          const config = { compilerOptions: { strict: true, noEmit: true, target: 'ES2022', lib: ['ES2022', 'DOM'], types: ['node'], skipLibCheck: false, ...resolution }, files: ['node-example.ts', 'browser-example.ts'] };
          writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
          const result = run(process.execPath, [join(dir, 'node_modules', `ts-${typescript}`, 'bin', 'tsc'), '-p', dir], dir);
          const ok = result.status === 0 && result.output === '';
          log(`${ok ? 'ok  ' : 'FAIL'} ${label}, moduleResolution ${name}`);
          if (!ok) failures.push(`${label}, ${name}:\n${result.output}`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return failures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const failures = checkTypesMatrix();
  for (const failure of failures) console.error(failure);
  process.exit(failures.length === 0 ? 0 : 1);
}
