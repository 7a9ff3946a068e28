/** What `npm pack` would put in the tarball (build outputs as they are; no prepare script run). */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export interface PackedFile {
  path: string;
  size: number;
}

export function packedFiles(): PackedFile[] {
  // --ignore-scripts: the test run's global setup has built dist/ already.
  const result = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'silent' } });
  if (result.status !== 0) throw new Error(`npm pack --dry-run failed: ${result.stderr}`);
  const [pack] = JSON.parse(result.stdout) as Array<{ files: PackedFile[] }>;
  return pack!.files;
}

/** Installs the packed files as node_modules/forge-engine of `project`, its dependencies linked to this clone's. */
export function installPacked(project: string, files: readonly PackedFile[]): void {
  const target = join(project, 'node_modules', 'forge-engine');
  for (const file of files) {
    mkdirSync(dirname(join(target, file.path)), { recursive: true });
    cpSync(resolve(file.path), join(target, file.path));
  }
  symlinkSync(resolve('node_modules'), join(target, 'node_modules'), 'dir');
  // The consumer's own type packages (its example imports node:fs).
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  symlinkSync(resolve('node_modules/@types'), join(project, 'node_modules', '@types'), 'dir');
}
