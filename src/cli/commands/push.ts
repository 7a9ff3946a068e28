/** forge push [SESSION…|--all] [--remote NAME|URL] [--force-with-lease] [--allow-http] */
import type { Command } from 'commander';
import type { AgentEvent } from '../../agent/events';
import type { Agent } from '../../agent/loop';
import { ForgeError, toForgeError } from '../../errors';
import { openRemote, pushSessions, type FetchFunction, type PushResult, type RemoteOptions } from '../../remote';
import { parseAdvertisement } from '../../remote/advertisement';
import type { Repository } from '../../git';
import { gitCredentialHelper } from '../../remote/node/git-credential';
import { common } from '../common';
import { emit, shortOid, warn, type CommonOptions } from '../io';
import { openRepository, openStore } from '../open';

export interface RemoteCliOptions extends CommonOptions {
  remote?: string;
  allowHttp?: boolean;
}

function pushLine(s: PushResult['sessions'][number]): string {
  const range = s.before ? `${shortOid(s.before)}..${shortOid(s.after)}` : shortOid(s.after);
  const status = s.status === 'lease-lost' ? 'rejected (lease lost)' : s.status;
  return `${status.padEnd(13)} forge/session/${s.session}  ${range}${s.reason ? `  (${s.reason})` : ''}`;
}

export function pushText(result: PushResult): string {
  return [`To ${result.remote}`, ...result.sessions.map(pushLine), `${result.objects} object(s), ${result.bytesSent} bytes sent.`].join('\n');
}

/** REMOTE_REJECTED / REMOTE_LEASE_LOST when any session was refused (after the report was printed). */
export function pushFailure(result: PushResult): ForgeError | null {
  const refused = result.sessions.filter((s) => s.status === 'rejected' || s.status === 'lease-lost');
  if (refused.length === 0) return null;
  const lease = refused.every((s) => s.status === 'lease-lost');
  const names = refused.map((s) => s.session).join(', ');
  return new ForgeError(lease ? 'REMOTE_LEASE_LOST' : 'REMOTE_REJECTED', `${result.remote} refused session(s) ${names}: ${refused.map((s) => s.reason).join('; ')}. Nothing local changed.`, {
    data: { remote: result.remote, sessions: refused },
    hint: lease
      ? 'Someone pushed since your last fetch: forge fetch, look at forge session list, then decide.'
      : `Fetch first (forge fetch), then continue the remote work with forge session pull (no local turns) or forge resume --from <remote commit>; or overwrite with --force-with-lease.`,
  });
}

export function remoteEnv(): Record<string, string | undefined> {
  return process.env;
}

/** What every remote command passes: the environment's token, git's credential helpers. */
export function remoteAccess(options: RemoteCliOptions): RemoteOptions {
  return {
    ...(options.remote !== undefined ? { remote: options.remote } : {}),
    allowHttp: options.allowHttp ?? false,
    env: remoteEnv(),
    credentialHelper: gitCredentialHelper,
    // https trusts the system's CA store too, as git does.
    fetch: systemCaFetch(remoteEnv()),
  };
}

/**
 * createSystemCaFetch, loaded at the first request: node:https and node:tls cost every command
 * ~10 ms of start-up to load, and only the remote commands send anything.
 */
function systemCaFetch(env: Record<string, string | undefined>): FetchFunction {
  let loaded: Promise<FetchFunction> | undefined;
  return async (url, init) => {
    loaded ??= import('../../remote/node/system-ca-fetch').then((m) => m.createSystemCaFetch(env));
    return (await loaded)(url, init);
  };
}

export function registerPush(program: Command): void {
  common(program.command('push [sessions...]'))
    .description('send session branches forge/session/<id> to a git remote (smart HTTP), fast-forward only')
    .option('--all', 'every local session')
    .option('--remote <name|url>', 'a configured remote or an https URL (default origin)')
    .option('--force-with-lease', 'overwrite the remote session only if it still holds what was last fetched')
    .option('--allow-http', 'allow plain http to hosts other than loopback')
    .option('--force', 'push even if a committed session state matches a secret rule')
    .action(async (sessions: string[], options: RemoteCliOptions & { all?: boolean; forceWithLease?: boolean; force?: boolean }) => {
      const repo = await openRepository(options);
      if (options.force !== true) await refuseSecrets(options, sessions, options.all === true);
      const result = await pushSessions(repo, {
        sessions,
        all: options.all ?? false,
        forceWithLease: options.forceWithLease ?? false,
        ...remoteAccess(options),
      });
      warn(result.warnings);
      const failure = pushFailure(result);
      if (failure && options.json) throw failure;
      emit(options, result, () => pushText(result));
      if (failure) throw failure;
    });
}

/** SECRETS_IN_SESSION when a session to push holds a committed state that matches a secret rule. */
async function refuseSecrets(options: RemoteCliOptions, sessions: string[], all: boolean): Promise<void> {
  const { unredactedSecrets, secretsError } = await import('../../session');
  const store = await openStore(options);
  const ids = all || sessions.length === 0 ? (await store.list()).map((s) => s.id) : sessions;
  // A session that does not exist is pushSessions' to report (SESSION_NOT_FOUND).
  const existing: string[] = [];
  for (const id of ids) if ((await store.repo.refs.resolve(`refs/heads/forge/session/${id}`).catch(() => null)) !== null) existing.push(id);
  const findings = await unredactedSecrets(store, existing);
  if (findings.length > 0) throw secretsError(findings);
}

/**
 * `forge run --push`: the agent, but every committed turn is pushed before the next one starts,
 * so a worker killed mid-run loses at most its pending turn. A refused or failed push stops the
 * run (the turn stays committed locally).
 */
/**
 * Before a run that pushes after every turn: the remote exists, speaks git's smart HTTP and takes
 * our credentials for a push, so a wrong --push fails before any session or turn is made.
 */
export async function checkPushRemote(repo: Repository, options: { push?: string | boolean; allowHttp?: boolean }): Promise<void> {
  const { transport } = await openRemote(repo, remoteAccess({ ...(typeof options.push === 'string' ? { remote: options.push } : {}), allowHttp: options.allowHttp ?? false }));
  parseAdvertisement(await transport.advertisement('git-receive-pack'), 'git-receive-pack', transport.label);
}

export function pushingAfterEachTurn(agent: Agent, options: { push?: string | boolean; allowHttp?: boolean }, onEvent: (event: AgentEvent) => void): Agent {
  const wrapped = Object.create(agent) as Agent;
  wrapped.runTurn = async (message?: string) => {
    const outcome = await agent.runTurn(message);
    if (outcome.commit === undefined) return outcome;
    let failure: ForgeError | null;
    try {
      const result = await pushSessions(agent.session.repo, {
        sessions: [agent.session.id],
        ...remoteAccess({ ...(typeof options.push === 'string' ? { remote: options.push } : {}), allowHttp: options.allowHttp ?? false }),
      });
      failure = pushFailure(result);
    } catch (error) {
      failure = toForgeError(error);
    }
    if (failure === null) return outcome;
    onEvent({ type: 'error', turn: outcome.turn, code: failure.code, kind: failure.kind, message: `turn ${outcome.turn} is committed here but was not pushed: ${failure.message}`, ...(failure.hint !== undefined ? { hint: failure.hint } : {}), committed: true });
    return { ...outcome, status: 'failed', error: failure };
  };
  return wrapped;
}
