/**
 * The sessions this process has mounted (forge mcp --mount, a library's mountSession, a mount
 * run_command made): a run_command on a mounted session runs in that mount instead of making one.
 */
import type { Session } from '../../session';
import type { MountedSession } from './mount-session';

const mounts = new Map<Session, MountedSession[]>();

/** The mount, remembered until its unmount() is called. */
export function rememberMount(session: Session, mount: MountedSession): MountedSession {
  const remembered: MountedSession = {
    ...mount,
    unmount: () => {
      forgetMount(session, remembered);
      return mount.unmount();
    },
  };
  mounts.set(session, [...(mounts.get(session) ?? []), remembered]);
  return remembered;
}

function forgetMount(session: Session, mount: MountedSession): void {
  const rest = (mounts.get(session) ?? []).filter((m) => m !== mount);
  if (rest.length > 0) mounts.set(session, rest);
  else mounts.delete(session);
}

/** A live mount of the session in this process, or undefined. */
export function mountOf(session: Session): MountedSession | undefined {
  return mounts.get(session)?.[0];
}
