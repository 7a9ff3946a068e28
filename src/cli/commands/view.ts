/** forge cat <path> | forge ls [dir] : read a session's current view (pending included) or any commit. */
import type { Command } from 'commander';
import { ForgeError } from '../../errors';
import * as fs from 'node:fs';
import { resolve } from 'node:path';
import { CommitVfs } from '../../vfs/commit-vfs';
import { materialize } from '../../vfs/materialize';
import type { Vfs } from '../../vfs/types';
import { common } from '../common';
import { emit, type CommonOptions } from '../io';
import { openRepository, openStore } from '../open';

interface ViewOptions extends CommonOptions {
  rev?: string;
  session?: string;
}

/** --session opens the store, which dist/forge-view.cjs leaves out: an option that reaches openStore belongs in command-groups.ts's `fullBundleFor`. */
async function openView(options: ViewOptions): Promise<Vfs> {
  if (options.rev !== undefined && options.session !== undefined) throw new ForgeError('INVALID_ARGUMENT', 'Give --rev or --session, not both.');
  if (options.session !== undefined) return (await (await openStore(options)).open(options.session, { readOnly: true })).vfs;
  return CommitVfs.open(await openRepository(options), options.rev ?? 'HEAD');
}

function withView(command: Command): Command {
  return common(command)
    .option('--rev <revision>', 'a commit, branch or tag (default HEAD)')
    .option('--session <id>', "a session's work-in-progress view, pending changes included");
}

export function registerView(program: Command): void {
  withView(program.command('cat <path>'))
    .description('print a file of a commit or of a session view (bytes as they are)')
    .action(async (path: string, options: ViewOptions) => {
      const bytes = await (await openView(options)).readFile(path);
      if (options.json) emit(options, { path, size: bytes.length, base64: Buffer.from(bytes).toString('base64') }, () => '');
      else process.stdout.write(bytes);
    });

  withView(program.command('ls [dir]'))
    .description('list every file below a directory (default: the whole tree)')
    .option('-z', 'end each path with NUL instead of a newline (paths may hold newlines), as git ls-tree -z')
    .action(async (dir: string | undefined, options: ViewOptions & { z?: boolean }) => {
      const view = await openView(options);
      if (options.json) {
        const entries = await view.walk(dir ?? '');
        emit(options, { files: entries.map((e) => ({ path: e.path, mode: e.mode, oid: e.oid })) }, () => '');
        return;
      }
      const terminator = options.z ? '\0' : '\n';
      // A commit's paths come as one buffer, with no object or string per file (for 50,000 files
      // they cost more than the printing).
      const bytes =
        view instanceof CommitVfs ? await view.pathBytes(dir ?? '', terminator.charCodeAt(0)) : new TextEncoder().encode((await view.walk(dir ?? '')).map((e) => e.path).join(terminator));
      if (bytes.length > 0) {
        process.stdout.write(bytes);
        process.stdout.write(terminator);
      }
    });

  withView(program.command('materialize <dir>'))
    .description('write the files of a commit or of a session view (pending included) into a new directory')
    .action(async (dir: string, options: ViewOptions) => {
      const target = resolve(dir);
      const result = await materialize(await openView(options), fs, target);
      emit(options, { dir: target, ...result }, () => `Wrote ${result.files} file(s), ${result.bytes} bytes, to ${target}`, 'report');
    });
}
