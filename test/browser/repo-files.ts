/**
 * Moving a git directory between Node's disk, a memfs volume and a browser's lightning-fs as a
 * map of relative path -> bytes (base64 to cross into the page), and the scenario's base
 * repository: made by the git CLI with the test identity, then packed, so the engine's pack
 * readers (sync in Node, async in the browser) serve the base commit everywhere.
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { createFsFromVolume, Volume } from 'memfs';
import type { GitFs } from '../../src/git';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';
import { SCENARIO_FILES } from './scenario';

export type FileMap = Record<string, Uint8Array>;

/** A bare repository with the scenario's files on main, fully packed; returns its files. */
export function scenarioBaseFiles(): FileMap {
  const repo = makeRepo({ files: SCENARIO_FILES, bare: true });
  git(repo.gitdir, ['repack', '-adq']);
  git(repo.gitdir, ['prune-packed']);
  return readDir(repo.gitdir);
}

export function readDir(root: string, prefix = ''): FileMap {
  const out: FileMap = {};
  for (const name of nodeFs.readdirSync(join(root, prefix))) {
    const rel = prefix === '' ? name : `${prefix}/${name}`;
    if (nodeFs.statSync(join(root, rel)).isDirectory()) Object.assign(out, readDir(root, rel));
    else out[rel] = new Uint8Array(nodeFs.readFileSync(join(root, rel)));
  }
  return out;
}

export function writeDir(root: string, files: FileMap): void {
  for (const [rel, bytes] of Object.entries(files)) {
    nodeFs.mkdirSync(join(root, rel, '..'), { recursive: true });
    nodeFs.writeFileSync(join(root, rel), bytes);
  }
  // git wants these even when empty.
  for (const dir of ['refs', 'objects']) nodeFs.mkdirSync(join(root, dir), { recursive: true });
}

export function memfsWith(root: string, files: FileMap): GitFs {
  const fs = createFsFromVolume(new Volume());
  for (const [rel, bytes] of Object.entries(files)) {
    fs.mkdirSync(`${root}/${rel}/..`, { recursive: true });
    fs.writeFileSync(`${root}/${rel}`, bytes);
  }
  return fs as unknown as GitFs;
}

export const toBase64 = (files: FileMap): Record<string, string> =>
  Object.fromEntries(Object.entries(files).map(([path, bytes]) => [path, Buffer.from(bytes).toString('base64')]));

export const fromBase64 = (files: Record<string, string>): FileMap =>
  Object.fromEntries(Object.entries(files).map(([path, text]) => [path, new Uint8Array(Buffer.from(text, 'base64'))]));
