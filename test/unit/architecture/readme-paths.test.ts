/**
 * The README names only what a clone has: every relative link and every repository path it
 * writes in backticks (outside code blocks) exists, and none leaves the repository (it once
 * pointed at `../shared/specs/`, which a clone does not have). Build outputs (dist/) are made by
 * `npm install`, so they are not checked here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const PROSE = readFileSync('README.md', 'utf8').replace(/```[\s\S]*?```/g, '');
const REPO_DIRS = ['docs', 'examples', 'fixtures-repos', 'scripts', 'src', 'test', 'bench', 'web'];

describe('README.md', () => {
  it('names only paths a clone has', () => {
    const links = [...PROSE.matchAll(/\]\(([^)\s#]+)\)/g)].map((m) => m[1]!).filter((p) => !/^[a-z]+:/.test(p));
    const inline = [...PROSE.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!).filter((p) => p.startsWith('../') || REPO_DIRS.some((d) => p.startsWith(`${d}/`)));
    const paths = [...links, ...inline];
    expect(paths.length).toBeGreaterThan(5);
    expect(paths.filter((p) => p.startsWith('../'))).toEqual([]);
    expect(paths.filter((p) => !existsSync(p))).toEqual([]);
  });
});
