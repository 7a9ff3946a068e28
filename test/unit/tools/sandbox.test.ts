import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../src/errors';
import { isForgeError } from '../../../src/errors';
import { isDotGitName } from '../../../src/git/tree-names';
import { DEFAULT_TOOLS_CONFIG, checkPath, checkPathSyntax, isVisiblePath, parseToolsConfig, type ApprovalRequest } from '../../../src/tools';
import { MemoryVfs } from '../../helpers/memory-vfs';
import { expectError, setup } from './harness';

// Independent models for the property test (not the functions under test): what git's fsck
// calls `.git` (HFS+: ignorables dropped, case folded; NTFS: before any `:stream`, trailing dots
// and spaces dropped, or the short name git~1), and what NTFS or HFS+ would open as `.forge`.
const HFS_IGNORABLES = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;
function namesDotGit(component: string): boolean {
  if (component.replace(HFS_IGNORABLES, '').toLowerCase() === '.git') return true;
  return /^(\.git|git~1)[. ]*$/i.test(component.split(':')[0]!);
}
function namesDotForge(component: string): boolean {
  return /^(\.forge|forge~1)[. ]*$/i.test(component.split(':')[0]!.replace(HFS_IGNORABLES, ''));
}

/** Hostile paths and the stable code each must be rejected with, by every path-taking tool. */
const HOSTILE: ReadonlyArray<readonly [string, ErrorCode]> = [
  ['/etc/passwd', 'PATH_ABSOLUTE'],
  ['/', 'PATH_ABSOLUTE'],
  ['//server/share/x', 'PATH_ABSOLUTE'],
  ['C:/Windows/system32/drivers/etc/hosts', 'PATH_ABSOLUTE'],
  ['c:relative.txt', 'PATH_ABSOLUTE'],
  ['~/.ssh/config', 'PATH_ABSOLUTE'],
  ['~', 'PATH_ABSOLUTE'],
  ['..', 'PATH_ESCAPES_ROOT'],
  ['../outside.txt', 'PATH_ESCAPES_ROOT'],
  ['src/../../etc/passwd', 'PATH_ESCAPES_ROOT'],
  ['src/a/..', 'PATH_ESCAPES_ROOT'],
  ['./src/a.ts', 'PATH_DOT_COMPONENT'],
  ['src/./a.ts', 'PATH_DOT_COMPONENT'],
  ['src//a.ts', 'PATH_EMPTY_COMPONENT'],
  ['src/', 'PATH_EMPTY_COMPONENT'],
  ['a\0.txt', 'PATH_CONTROL_CHARACTER'],
  ['src/a.ts\0.png', 'PATH_CONTROL_CHARACTER'],
  ['a\nb.txt', 'PATH_CONTROL_CHARACTER'],
  ['a\tb.txt', 'PATH_CONTROL_CHARACTER'],
  ['a\rb.txt', 'PATH_CONTROL_CHARACTER'],
  ['a\x7fb.txt', 'PATH_CONTROL_CHARACTER'],
  ['\x1b[31mred.txt', 'PATH_CONTROL_CHARACTER'],
  ['a\u0085b.txt', 'PATH_CONTROL_CHARACTER'],
  ['invoice\u202efdp.exe', 'PATH_CONTROL_CHARACTER'],
  ['a\u2028b.txt', 'PATH_CONTROL_CHARACTER'],
  ['src\\a.ts', 'PATH_BACKSLASH'],
  ['..\\..\\windows\\win.ini', 'PATH_BACKSLASH'],
  ['a\ud800b.txt', 'PATH_INVALID_UNICODE'],
  ['x'.repeat(256), 'PATH_TOO_LONG'],
  [`${'a/'.repeat(2100)}b`, 'PATH_TOO_LONG'],
  ['.git', 'PATH_GIT_DIR'],
  ['.git/config', 'PATH_GIT_DIR'],
  ['.GIT/HEAD', 'PATH_GIT_DIR'],
  ['.Git/hooks/pre-commit', 'PATH_GIT_DIR'],
  ['sub/.git/config', 'PATH_GIT_DIR'],
  ['.git./config', 'PATH_GIT_DIR'],
  ['.git /config', 'PATH_GIT_DIR'],
  ['.git. . ./hooks/x', 'PATH_GIT_DIR'],
  ['git~1/config', 'PATH_GIT_DIR'],
  ['GIT~1/HEAD', 'PATH_GIT_DIR'],
  ['.git::$INDEX_ALLOCATION/config', 'PATH_GIT_DIR'],
  ['.g\u200cit/config', 'PATH_GIT_DIR'],
  ['\ufeff.git/hooks/post-checkout', 'PATH_GIT_DIR'],
  ['.forge', 'PATH_RESERVED'],
  ['.forge/sessions/s1.json', 'PATH_RESERVED'],
  ['.FORGE/config.json', 'PATH_RESERVED'],
  ['.forge./x', 'PATH_RESERVED'],
  ['forge~1/sessions/s1.json', 'PATH_RESERVED'],
  ['FORGE~1', 'PATH_RESERVED'],
  ['forge~1. /x', 'PATH_RESERVED'],
  ['.forge:stream', 'PATH_RESERVED'],
  ['.fo\u200crge/x', 'PATH_RESERVED'],
  ['.git:x', 'PATH_GIT_DIR'],
  ['src/.gi\ufefft/HEAD', 'PATH_GIT_DIR'],
  ['.env', 'PATH_DENIED'],
  ['config/.env', 'PATH_DENIED'],
  ['.env.local', 'PATH_DENIED'],
  ['.ENV', 'PATH_DENIED'],
  ['certs/server.pem', 'PATH_DENIED'],
  ['keys/private.key', 'PATH_DENIED'],
  ['home/id_rsa', 'PATH_DENIED'],
  ['id_rsa.pub', 'PATH_DENIED'],
  ['uplink/file.txt', 'PATH_THROUGH_SYMLINK'],
  ['uplink/nested/deeper.txt', 'PATH_THROUGH_SYMLINK'],
  ['src/abs-link/passwd', 'PATH_THROUGH_SYMLINK'],
  ['vendor/lib/x.c', 'PATH_THROUGH_SUBMODULE'],
];

const TREE = {
  'README.md': '# demo\n',
  'src/a.ts': 'export const a = 1;\n',
  uplink: { symlink: '..' },
  'src/abs-link': { symlink: '/etc' },
  vendor: { submodule: '0123456789abcdef0123456789abcdef01234567' },
};

/** Every path-taking tool, with arguments that put the path in each path field. */
const PATH_CALLS: ReadonlyArray<readonly [string, (path: string) => Record<string, unknown>]> = [
  ['read_file', (path) => ({ path })],
  ['write_file', (path) => ({ path, content: 'pwned\n' })],
  ['delete_file', (path) => ({ path })],
  ['list_files', (path) => ({ path })],
  ['search', (path) => ({ pattern: 'x', path })],
  ['Edit', (path) => ({ path, old_snippet: 'a', new_snippet: 'b' })],
  ['edit', (path) => ({ path, start_line: 1, end_line: 1, new_content: 'b' })],
  ['Patch', (path) => ({ path, patches: [{ operation: 'overwrite', newText: 'pwned\n' }] })],
  ['search_replace', (path) => ({ path, blocks: '<<<<<<< SEARCH\n=======\npwned\n>>>>>>> REPLACE\n' })],
  ['update_context', (path) => ({ add: [path] })],
  ['update_context', (path) => ({ remove: [path] })],
];

describe('path sandbox', () => {
  it('has a table of at least 40 hostile paths', () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(40);
  });

  describe.each(PATH_CALLS)('%s', (tool, argsFor) => {
    it.each(HOSTILE)('rejects %j with %s and changes nothing', async (path, code) => {
      const asked: ApprovalRequest[] = [];
      const h = await setup(TREE, { approval: { decide: (request) => (asked.push(request), 'allow') } });
      const before = h.vfs.snapshot();
      const error = expectError(await h.call(tool, argsFor(path)), code);
      expect(error.data?.path).toBe(path);
      expect(h.vfs.mutationCount).toBe(0);
      expect(h.vfs.snapshot()).toEqual(before);
      expect(h.state.activeFiles).toEqual([]);
      // The sandbox runs before approval: nobody is asked about a path that will be refused.
      expect(asked).toEqual([]);
    });
  });

  it('names the field in the message, and how to fix the path', async () => {
    const h = await setup(TREE);
    const error = expectError(await h.call('update_context', { add: ['src/a.ts', '../x'] }), 'PATH_ESCAPES_ROOT');
    expect(error.message).toContain('`add[1]`');
    expect(error.message).toContain('"../x"');
    expect(error.hint).toMatch(/without "\.\."/);
  });

  it('refuses an empty path for file tools, but treats "" and "." as the root for directory tools', async () => {
    const h = await setup(TREE);
    expectError(await h.call('read_file', { path: '' }), 'PATH_EMPTY');
    expectError(await h.call('write_file', { path: '', content: '' }), 'PATH_EMPTY');
    for (const path of ['', '.']) {
      const result = await h.call('list_files', { path });
      expect(result.ok).toBe(true);
    }
  });

  it('refuses to write or edit a symlink itself, but may delete it', async () => {
    const h = await setup({ 'src/link.ts': { symlink: 'a.ts' }, 'src/a.ts': 'x\n' });
    expectError(await h.call('write_file', { path: 'src/link.ts', content: 'y' }), 'PATH_IS_SYMLINK');
    expectError(await h.call('Edit', { path: 'src/link.ts', old_snippet: 'a', new_snippet: 'b' }), 'PATH_IS_SYMLINK');
    expectError(await h.call('Patch', { path: 'src/link.ts', patches: [{ operation: 'overwrite', newText: 'y' }] }), 'PATH_IS_SYMLINK');
    expect(h.vfs.mutationCount).toBe(0);
    expect((await h.call('delete_file', { path: 'src/link.ts' })).ok).toBe(true);
    expect(await h.vfs.exists('src/link.ts')).toBe(false);
  });

  it('refuses to write or delete a submodule', async () => {
    const h = await setup(TREE);
    expectError(await h.call('write_file', { path: 'vendor', content: 'x' }), 'PATH_IS_SUBMODULE');
    expectError(await h.call('delete_file', { path: 'vendor' }), 'PATH_IS_SUBMODULE');
  });

  it('accepts ordinary paths, including names that only resemble forbidden ones', async () => {
    const ok = [
      'src/index.ts',
      '.gitignore',
      '.gitmodules',
      '.gitattributes',
      '.github/workflows/ci.yml',
      'a/.gitkeep',
      'git~2/x',
      '.gitx/y',
      'pkg/.forge/y',
      '.forge-cache/x',
      'my file.txt',
      'ünïcödé/文件.md',
      'emoji-😀.txt',
      '...',
      'a..b/c',
      'ab:c.txt',
      'environment.ts',
      'keys.ts',
      'x'.repeat(255),
    ];
    const vfs = await MemoryVfs.create({});
    for (const path of ok) {
      expect(checkPathSyntax({ field: 'path', path, role: 'write' })).toBe(path);
      expect(await checkPath(vfs, DEFAULT_TOOLS_CONFIG, { field: 'path', path, role: 'write' })).toBe(path);
    }
  });

  it('uses configured denied patterns in gitignore syntax (replacing the defaults)', async () => {
    const config = parseToolsConfig({ denied_paths: ['secrets/', '*.sqlite', '!public.sqlite'] });
    const vfs = await MemoryVfs.create({ 'secrets/token.txt': 't', 'db.sqlite': 'x', 'public.sqlite': 'y', '.env': 'A=1' });
    const denied = async (path: string) => {
      try {
        await checkPath(vfs, config, { field: 'path', path, role: 'read' });
        return false;
      } catch (error) {
        if (isForgeError(error, 'PATH_DENIED')) return true;
        throw error;
      }
    };
    expect(await denied('secrets/token.txt')).toBe(true);
    expect(await denied('secrets/deeper/a')).toBe(true);
    expect(await denied('db.sqlite')).toBe(true);
    expect(await denied('public.sqlite')).toBe(false);
    expect(await denied('.env')).toBe(false);
  });

  it('denies the default secret patterns', () => {
    for (const path of ['.env', 'a/.env.production', 'tls/cert.pem', 'x.key', 'id_rsa', 'id_rsa.pub', 'deploy/id_rsa_backup']) {
      expect(isVisiblePath(path, DEFAULT_TOOLS_CONFIG), path).toBe(false);
    }
    for (const path of ['env.ts', 'src/key.ts', 'pem/readme.md', 'my_id_rsa_notes.md']) {
      expect(isVisiblePath(path, DEFAULT_TOOLS_CONFIG), path).toBe(true);
    }
  });

  // The spellings themselves are tested once, against git fsck, in test/unit/git/tree-names.test.ts.
  it('refuses a component exactly when the tree-name rule calls it .git', () => {
    for (const name of ['.git:x', '.gi\ufefft', 'git~1.', '.gitignore', 'x:.git']) {
      const refused = (() => {
        try {
          checkPathSyntax({ field: 'path', path: `src/${name}/a`, role: 'write' });
          return false;
        } catch (error) {
          return isForgeError(error, 'PATH_GIT_DIR');
        }
      })();
      expect(refused, JSON.stringify(name)).toBe(isDotGitName(name));
    }
  });

  // Any string: if the sandbox accepts it, it is a canonical relative path with no forbidden part.
  it('accepts only canonical, safe paths (property)', () => {
    const fragment = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.constantFrom('/', '//', '.', '..', '\\', '\0', '\n', '.git', '.GIT.', 'git~1', '.forge', 'forge~1', 'FORGE~1', ':x', ' ', '\u200c', '\ufeff', '~', 'C:', '\u202e', '\ud800'),
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 6 }), (parts) => {
        const path = parts.join('');
        let accepted: string;
        try {
          accepted = checkPathSyntax({ field: 'path', path, role: 'write' });
        } catch (error) {
          expect(isForgeError(error)).toBe(true);
          expect((error as { code: string }).code).toMatch(/^PATH_/);
          return;
        }
        expect(accepted).toBe(path);
        const components = path.split('/');
        expect(components.every((c) => c !== '' && c !== '.' && c !== '..')).toBe(true);
        expect(components.filter(namesDotGit)).toEqual([]);
        expect(namesDotForge(components[0]!)).toBe(false);
        expect(/[\0-\x1f\x7f\\]/.test(path)).toBe(false);
        expect(path === '~' || path.startsWith('~/') || /^[A-Za-z]:/.test(path)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});
