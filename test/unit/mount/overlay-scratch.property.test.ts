/**
 * The scratch layer over the working tree's ignored directories (overlay semantics) against its
 * model: a plain directory that starts as a copy of the working tree's node_modules/ and takes
 * the same operations. Same results (errors included), same listing, bytes and modes, and the
 * working tree (the lower layer) is never written. Needs no FUSE: the layer is plain fs calls.
 */
import { constants } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { OverlayScratch } from '../../../src/mount/node/overlay-scratch';
import { makeTempDir } from '../../helpers/temp';

const LOWER_FILES: Record<string, string> = { 'node_modules/a/x': 'ax', 'node_modules/a/y': 'ay', 'node_modules/b/z': 'bz', 'src/tracked': 'not ignored' };
const PATHS = ['node_modules/a', 'node_modules/a/x', 'node_modules/a/y', 'node_modules/b', 'node_modules/b/z', 'node_modules/c', 'node_modules/c/w', 'node_modules/x'];
const path = fc.constantFrom(...PATHS);

type Op =
  | { op: 'write'; path: string; data: string }
  | { op: 'unlink'; path: string }
  | { op: 'mkdir'; path: string }
  | { op: 'rmdir'; path: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'chmod'; path: string; mode: number }
  | { op: 'remove'; path: string };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('write' as const), path, data: fc.string({ maxLength: 8 }) }),
  fc.record({ op: fc.constant('unlink' as const), path }),
  fc.record({ op: fc.constant('mkdir' as const), path }),
  fc.record({ op: fc.constant('rmdir' as const), path }),
  fc.record({ op: fc.constant('rename' as const), from: path, to: path }),
  fc.record({ op: fc.constant('chmod' as const), path, mode: fc.constantFrom(0o755, 0o600) }),
  fc.record({ op: fc.constant('remove' as const), path }),
);

/** The file-system calls both sides answer: the layer (with MountFs's checks before it) and a plain directory. */
interface Side {
  lstat(p: string): Promise<{ dir: boolean } | null>;
  readdir(p: string): Promise<string[]>;
  apply(op: Op): Promise<void>;
}

function layerSide(layer: OverlayScratch): Side {
  return {
    lstat: async (p) => {
      const a = await layer.lstat(p);
      return a && { dir: (a.mode & 0o170000) === 0o040000 };
    },
    readdir: (p) => layer.readdir(p),
    apply: async (op) => {
      switch (op.op) {
        case 'write': {
          const fd = (await layer.lstat(op.path)) === null ? await layer.create(op.path, 0o644, constants.O_RDWR) : await layer.open(op.path, constants.O_RDWR | constants.O_TRUNC);
          await layer.write(fd, new TextEncoder().encode(op.data), 0);
          return layer.close(fd);
        }
        case 'unlink':
          return layer.unlink(op.path);
        case 'mkdir':
          return layer.mkdir(op.path, 0o755);
        case 'rmdir':
          return layer.rmdir(op.path);
        case 'rename':
          return layer.rename(op.from, op.to);
        case 'chmod':
          return layer.chmod(op.path, op.mode);
        case 'remove':
          return layer.remove(op.path);
      }
    },
  };
}

function plainSide(root: string): Side {
  const at = (p: string) => join(root, p);
  return {
    lstat: async (p) => {
      const st = await fsp.lstat(at(p)).catch(() => null);
      return st && { dir: st.isDirectory() };
    },
    readdir: (p) => fsp.readdir(at(p)),
    apply: async (op) => {
      switch (op.op) {
        case 'write':
          return fsp.writeFile(at(op.path), op.data);
        case 'unlink':
          return fsp.unlink(at(op.path));
        case 'mkdir':
          return fsp.mkdir(at(op.path), 0o755);
        case 'rmdir':
          return fsp.rmdir(at(op.path));
        case 'rename':
          return fsp.rename(at(op.from), at(op.to));
        case 'chmod':
          return fsp.chmod(at(op.path), op.mode);
        case 'remove':
          return fsp.rm(at(op.path), { recursive: true, force: true });
      }
    },
  };
}

/** What MountFs checks before it calls the layer (so the layer's contract is the same as the kernel's). */
async function precheck(side: Side, op: Op): Promise<string | null> {
  const parentOf = (p: string) => dirname(p);
  const target = 'path' in op ? op.path : op.from;
  const found = await side.lstat(target);
  switch (op.op) {
    case 'write':
      if (found?.dir) return 'EISDIR';
      if (!found && !(await side.lstat(parentOf(op.path)))?.dir) return 'ENOENT';
      return null;
    case 'unlink':
      return !found ? 'ENOENT' : found.dir ? 'EISDIR' : null;
    case 'mkdir':
      if (found) return 'EEXIST';
      return (await side.lstat(parentOf(op.path)))?.dir ? null : 'ENOENT';
    case 'rmdir':
      if (!found) return 'ENOENT';
      if (!found.dir) return 'ENOTDIR';
      return (await side.readdir(op.path)).length > 0 ? 'ENOTEMPTY' : null;
    case 'rename': {
      if (!found) return 'ENOENT';
      if (found.dir) return 'SKIP'; // directories: EXDEV where the working tree has a part (checked apart)
      const to = await side.lstat(op.to);
      if (to?.dir) return 'EISDIR';
      if (!to && !(await side.lstat(parentOf(op.to)))?.dir) return 'ENOENT';
      return op.from === op.to ? 'SAME' : null;
    }
    case 'chmod':
      return found ? null : 'ENOENT';
    case 'remove':
      return found ? null : 'ENOENT';
  }
}

async function run(side: Side, op: Op): Promise<string> {
  const refused = await precheck(side, op);
  if (refused !== null) return refused;
  try {
    await side.apply(op);
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

async function snapshot(side: Side, read: (p: string) => Promise<string>, mode: (p: string) => Promise<number>, root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(dir: string): Promise<void> {
    for (const name of (await side.readdir(dir)).sort()) {
      const p = `${dir}/${name}`;
      if ((await side.lstat(p))?.dir) {
        out[p] = 'dir';
        await walk(p);
      } else out[p] = `${(await mode(p)).toString(8)} ${await read(p)}`;
    }
  }
  await walk(root);
  return out;
}

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [p, text] of Object.entries(files)) {
    await fsp.mkdir(join(root, dirname(p)), { recursive: true });
    await fsp.writeFile(join(root, p), text);
  }
}

it('the overlay scratch layer behaves as a plain copy of the working tree\'s ignored directory, and never writes the working tree', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 20 }), async (ops) => {
      const base = makeTempDir('overlay');
      const lower = join(base, 'worktree');
      const upper = join(base, 'scratch');
      const plain = join(base, 'plain');
      await writeTree(lower, LOWER_FILES);
      await writeTree(plain, Object.fromEntries(Object.entries(LOWER_FILES).filter(([p]) => p.startsWith('node_modules/'))));
      await fsp.mkdir(upper);
      const layer = new OverlayScratch(upper, lower, async (p, isDir) => p.startsWith('node_modules/') || (isDir && p === 'node_modules'), join(base, 'mnt'));
      const a = layerSide(layer);
      const b = plainSide(plain);
      for (const op of ops) {
        const expected = await run(b, op);
        const actual = await run(a, op);
        if (actual === 'EXDEV') {
          expect(op.op, JSON.stringify(op)).toBe('rename');
          continue;
        }
        expect(actual, JSON.stringify(op)).toBe(expected);
      }
      const viaLayer = await snapshot(a, async (p) => new TextDecoder().decode(await layer.readFile(p)), async (p) => (await layer.lstat(p))!.mode & 0o777, 'node_modules');
      const viaPlain = await snapshot(b, (p) => fsp.readFile(join(plain, p), 'utf8'), async (p) => (await fsp.lstat(join(plain, p))).mode & 0o777, 'node_modules');
      expect(viaLayer).toEqual(viaPlain);
      // Only ignored directories show from below; the working tree is as it was.
      expect(await layer.lstat('src')).toBeNull();
      for (const [p, text] of Object.entries(LOWER_FILES)) expect(await fsp.readFile(join(lower, p), 'utf8')).toBe(text);
      expect((await fsp.readdir(join(lower, 'node_modules'))).sort()).toEqual(['a', 'b']);
    }),
    { numRuns: 150, seed: Number(process.env.FORGE_OVERLAY_SEED ?? 27) },
  );
}, 120_000);
