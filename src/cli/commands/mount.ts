/**
 * forge mount <session> <dir>: the session's live view as a directory (FUSE) until Ctrl-C,
 * SIGTERM or `forge mount --unmount <dir>`. Reads come from the object store as programs read;
 * every change is a pending edit of the session, journaled when the file is closed.
 */
import type { Command } from 'commander';
import { ForgeError } from '../../errors';
import { DEFAULT_TOOLS_CONFIG } from '../../tools';
import { common } from '../common';
import { emit, type CommonOptions } from '../io';
import { openStore } from '../open';
import { loadSettings } from '../settings';

interface MountOptions extends CommonOptions {
  copy?: boolean;
  unmount?: boolean;
  scratch: boolean;
  worktreeIgnored: boolean;
}

export function registerMount(program: Command): void {
  common(program.command('mount'))
    .description('mount a session as a live directory (FUSE): programs read the view, their writes become the session\'s pending edits')
    .argument('[session]', 'the session to mount')
    .argument('[dir]', 'an empty directory to mount it on')
    .option('--copy', 'without FUSE: materialize the session into the directory once; its changes are found (stat data, then hashes) at each forge turn, undo, discard and forge mount --copy, and forge\'s edits are written back into it')
    .option('--unmount', 'unmount the forge mount at the directory given (forge mount --unmount <dir>)')
    .option('--no-scratch', 'keep ignored paths (node_modules/, dist/) in the pending layer instead of the session\'s scratch directory')
    .option('--no-worktree-ignored', 'do not show the working tree\'s ignored directories (installed node_modules/) beneath the scratch layer (setting: mount_worktree_ignored)')
    .action(async (first: string | undefined, second: string | undefined, options: MountOptions) => {
      const { mountSession, unmountDir } = await import('../../mount/node/mount-session');
      if (options.copy) return mountCopy(first, second, options);
      if (options.unmount) {
        const dir = second ?? first;
        if (dir === undefined || (first !== undefined && second !== undefined)) throw new ForgeError('INVALID_ARGUMENT', 'forge mount --unmount takes the mount directory only.', { hint: 'forge mount --unmount <dir>' });
        const result = await unmountDir(dir);
        emit(options, result, () => `unmounted ${result.dir}${result.stale ? ' (its process was gone)' : ''}`);
        return;
      }
      if (first === undefined || second === undefined) throw new ForgeError('INVALID_ARGUMENT', 'forge mount needs a session and a directory.', { hint: 'forge mount <session> <dir>' });
      const store = await openStore(options);
      const { denied_paths, mount_worktree_ignored } = loadSettings(store.repo.workdir, {});
      const session = await store.open(first);
      for (const note of session.recoveryNotes()) process.stderr.write(`forge: ${note}\n`);
      const mount = await mountSession(session, second, {
        scratch: options.scratch,
        // The flag (only ever "off") wins over the setting; both default to on.
        worktreeIgnored: options.worktreeIgnored && mount_worktree_ignored !== false,
        config: denied_paths !== undefined ? { ...DEFAULT_TOOLS_CONFIG, denied_paths } : DEFAULT_TOOLS_CONFIG,
      });
      // Listening before saying it is mounted: a SIGTERM sent on that line must unmount, not kill.
      const stopped = new Promise<void>((resolve) => {
        for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => resolve());
      });
      emit(options, { session: session.id, dir: mount.dir, mode: 'fuse', scratch: mount.scratchDir ?? null, worktree_ignored: mount.lowerDir ?? null }, () =>
        [
          `forge mount: session ${session.id} at ${mount.dir} (FUSE; writes are pending edits, durable when a file is closed)`,
          mount.scratchDir ? `ignored paths live in ${mount.scratchDir} (top-most ignored directories show as links to it)` : 'ignored paths are pending edits too (--no-scratch)',
          ...(mount.lowerDir ? [`the ignored directories of ${mount.lowerDir} show read-only beneath them, copied up on write (--no-worktree-ignored to hide them)`] : []),
          `Ctrl-C or "forge mount --unmount ${mount.dir}" to unmount; "forge turn" commits after that.`,
        ].join('\n'),
      );
      await stopped;
      await mount.unmount();
      await session.close();
    });
}

/**
 * forge mount --copy <session> <dir>: the session materialized into dir (first time) or synced
 * with it (after that); --unmount --copy <session> forgets the copy (the directory stays).
 */
async function mountCopy(first: string | undefined, second: string | undefined, options: MountOptions): Promise<void> {
  const { CopyMount } = await import('../../mount/node/copy-mount');
  const store = await openStore(options);
  if (options.unmount) {
    if (first === undefined || second !== undefined) throw new ForgeError('INVALID_ARGUMENT', 'forge mount --unmount --copy takes the session only.', { hint: 'forge mount --unmount --copy <session>' });
    const session = await store.open(first);
    const dir = await CopyMount.forget(session);
    await session.close();
    emit(options, { session: session.id, dir }, () => (dir === null ? `session ${session.id} has no copy directory` : `forgot ${dir} (the directory stays as it is; forge no longer syncs it)`));
    return;
  }
  if (first === undefined || second === undefined) throw new ForgeError('INVALID_ARGUMENT', 'forge mount --copy needs a session and a directory.', { hint: 'forge mount --copy <session> <dir>' });
  const { denied_paths } = loadSettings(store.repo.workdir, {});
  const session = await store.open(first);
  for (const note of session.recoveryNotes()) process.stderr.write(`forge: ${note}\n`);
  const { copy, created, sync } = await CopyMount.mount(session, second, denied_paths !== undefined ? { ...DEFAULT_TOOLS_CONFIG, denied_paths } : DEFAULT_TOOLS_CONFIG);
  await session.close();
  const imported = sync.imported.added.length + sync.imported.modified.length + sync.imported.deleted.length;
  emit(options, { session: session.id, dir: copy.dir, mode: 'copy', created, imported: sync.imported, skipped: sync.skipped, written: sync.written, removed: sync.removed }, () =>
    [
      created
        ? `forge mount: session ${session.id} copied to ${copy.dir} (copy mode, no FUSE: ${sync.written} file(s) written)`
        : `forge mount: session ${session.id} at ${copy.dir} synced (copy mode): ${imported} change(s) from the directory now pending, ${sync.written} file(s) written back, ${sync.removed} removed`,
      ...sync.skipped.map((s) => `skipped ${s.path}: ${s.code}`),
      'Changes in the directory are found by stat data and hashes at each forge turn, forge undo, forge session discard and forge mount --copy;',
      'forge\'s own edits are written back into it. Ignored paths (node_modules/, dist/) stay there, never committed.',
    ].join('\n'),
  );
}
