/**
 * Detecting files that are produced by tools (REQ-PATCH-007): editing them works, but the change is
 * likely to be lost when they are regenerated, so the patch result carries a warning.
 */

const LOCK_FILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lock',
  'Cargo.lock',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'Gemfile.lock',
  'composer.lock',
  'go.sum',
  'flake.lock',
  'mix.lock',
  'pubspec.lock',
  'Podfile.lock',
  'packages.lock.json',
  'gradle.lockfile',
]);

const GENERATED_SUFFIXES = ['.pb.go', '_pb2.py', '_pb2_grpc.py', '.pb.cc', '.pb.h', '.g.dart', '.freezed.dart'];
const MINIFIED_NAME = /\.min\.(js|mjs|cjs|css)$/i;

/** Only the top of a file is searched for markers, where tools put them; a mention deep inside is not a marker. */
const HEADER_LINES = 15;
const HEADER_CHARS = 4000;
const MARKERS: { pattern: RegExp; label: string }[] = [
  { pattern: /Code generated .* DO NOT EDIT/, label: '"Code generated ... DO NOT EDIT"' },
  { pattern: /@generated\b/, label: '"@generated"' },
  { pattern: /\bDO NOT EDIT\b/, label: '"DO NOT EDIT"' },
  { pattern: /\b(auto-?generated|automatically generated)\b/i, label: '"auto-generated"' },
];

/** A single line this long, or a long file whose lines average this long, is treated as minified. */
const MINIFIED_LINE_CHARS = 10_000;
const MINIFIED_AVERAGE_CHARS = 1000;
const MINIFIED_MIN_SIZE = 5_000;

/** Why `path` with content `text` looks generated, or null. */
export function detectGenerated(path: string, text: string): string | null {
  const name = path.split(/[\\/]/).pop() ?? path;
  const reason = reasonFor(name, text);
  if (reason === null) return null;
  return `${path} looks generated (${reason}); the patch was applied, but the change may be lost when the file is regenerated. Prefer changing its source or generator.`;
}

function reasonFor(name: string, text: string): string | null {
  if (LOCK_FILES.has(name)) return 'it is a lock file maintained by a package manager';
  const suffix = GENERATED_SUFFIXES.find((s) => name.endsWith(s));
  if (suffix !== undefined) return `its name ends with ${suffix}`;
  if (MINIFIED_NAME.test(name)) return 'it is a minified file';

  const header = text.slice(0, HEADER_CHARS).split(/\r\n|\r|\n/).slice(0, HEADER_LINES).join('\n');
  const marker = MARKERS.find((m) => m.pattern.test(header));
  if (marker !== undefined) return `its header contains ${marker.label}`;

  const lines = text.split(/\r\n|\r|\n/);
  if (lines.some((l) => l.length >= MINIFIED_LINE_CHARS)) return `it has a line of ${MINIFIED_LINE_CHARS}+ characters, as minified files do`;
  if (text.length >= MINIFIED_MIN_SIZE && text.length / lines.length >= MINIFIED_AVERAGE_CHARS) {
    return 'its lines are very long on average, as minified files are';
  }
  return null;
}
