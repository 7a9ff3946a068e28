/** Session ids and the names derived from them (branch, state file, journal key). */
import { ForgeError } from '../errors';
import { refNameProblem } from '../git';

export const SESSION_REF_PREFIX = 'refs/heads/forge/session/';
export const SESSION_DIR = '.forge/sessions';

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function validateSessionId(id: string): string {
  if (!ID.test(id) || id.includes('..') || id.endsWith('.lock') || id.endsWith('.') || refNameProblem(`${SESSION_REF_PREFIX}${id}`) !== null) {
    throw new ForgeError('INVALID_ARGUMENT', `Session id "${id}" is not valid: use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.`, { data: { id } });
  }
  return id;
}

export function newSessionId(): string {
  return globalThis.crypto.randomUUID();
}

export function sessionRef(id: string): string {
  return `${SESSION_REF_PREFIX}${id}`;
}

export function sessionBranch(id: string): string {
  return `forge/session/${id}`;
}

export function sessionStatePath(id: string): string {
  return `${SESSION_DIR}/${id}.json`;
}
