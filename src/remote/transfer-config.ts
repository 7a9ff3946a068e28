/**
 * The transfer limits of a remote operation, from git's own settings where git has one:
 * http.lowSpeedLimit / http.lowSpeedTime (GIT_HTTP_LOW_SPEED_LIMIT / GIT_HTTP_LOW_SPEED_TIME win,
 * as in git), forge.connectTimeout (seconds; git has none, curl's connect timeout is not
 * configurable there), and forge.fetchMaxNewRefs: how many remote-tracking refs one fetch may
 * create. Values are whole numbers as git writes them (k, m, g suffixes too); 0 turns a limit off.
 */
import { ForgeError } from '../errors';
import type { Repository } from '../git';
import { DEFAULT_TRANSFER_LIMITS, type TransferLimits } from './http-transport';

/** One fetch creates at most this many remote-tracking refs unless forge.fetchMaxNewRefs says otherwise. */
export const DEFAULT_FETCH_MAX_NEW_REFS = 1000;

const SUFFIX: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

function wholeNumber(key: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const match = /^\s*(\d+)\s*([kmg]?)\s*$/i.exec(raw);
  if (!match) {
    throw new ForgeError('INVALID_ARGUMENT', `${key} is "${raw}", not a whole number.`, { data: { key }, hint: `Fix it with git config ${key} N (0 turns the limit off).` });
  }
  return Number(match[1]) * SUFFIX[match[2]!.toLowerCase()]!;
}

export async function transferLimits(repo: Repository, env: Record<string, string | undefined>): Promise<TransferLimits> {
  const limit = wholeNumber('GIT_HTTP_LOW_SPEED_LIMIT', env.GIT_HTTP_LOW_SPEED_LIMIT) ?? wholeNumber('http.lowSpeedLimit', await repo.config.getString('http.lowSpeedLimit'));
  const time = wholeNumber('GIT_HTTP_LOW_SPEED_TIME', env.GIT_HTTP_LOW_SPEED_TIME) ?? wholeNumber('http.lowSpeedTime', await repo.config.getString('http.lowSpeedTime'));
  const connect = wholeNumber('forge.connectTimeout', await repo.config.getString('forge.connectTimeout'));
  return {
    connectTimeoutMs: connect !== undefined ? connect * 1000 : DEFAULT_TRANSFER_LIMITS.connectTimeoutMs,
    lowSpeedLimit: limit ?? DEFAULT_TRANSFER_LIMITS.lowSpeedLimit,
    lowSpeedTimeMs: time !== undefined ? time * 1000 : DEFAULT_TRANSFER_LIMITS.lowSpeedTimeMs,
  };
}

export async function fetchMaxNewRefs(repo: Repository): Promise<number> {
  const configured = wholeNumber('forge.fetchMaxNewRefs', await repo.config.getString('forge.fetchMaxNewRefs'));
  return configured === undefined ? DEFAULT_FETCH_MAX_NEW_REFS : configured === 0 ? Infinity : configured;
}
