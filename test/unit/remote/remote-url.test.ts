import { describe, expect, it } from 'vitest';
import { ForgeError } from '../../../src/errors';
import { parseRemoteUrl, redactUrl } from '../../../src/remote';
import { basicAuthorization, credentialsFromEnvironment } from '../../../src/remote/auth';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof ForgeError ? error.code : 'not a ForgeError';
  }
  return undefined;
}

describe('remote URLs', () => {
  it('refuses ssh in every spelling, and what is not http(s), with a coded error', () => {
    for (const url of ['ssh://git@example.com/o/r.git', 'git+ssh://example.com/r', 'git@github.com:o/r.git', 'git://example.com/r', 'file:///srv/r.git', '/srv/r.git', '../r']) {
      expect(codeOf(() => parseRemoteUrl(url)), url).toBe('REMOTE_PROTOCOL_UNSUPPORTED');
    }
    try {
      parseRemoteUrl('git@github.com:o/r.git');
    } catch (error) {
      expect((error as ForgeError).message).toContain('ssh');
      expect((error as ForgeError).hint).toContain('https');
    }
  });

  it('allows plain http only to loopback unless allowHttp', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '[::1]']) expect(parseRemoteUrl(`http://${host}:8080/r.git`).url).toBe(`http://${host}:8080/r.git`);
    expect(codeOf(() => parseRemoteUrl('http://git.example.com/r.git'))).toBe('REMOTE_INSECURE_HTTP');
    expect(codeOf(() => parseRemoteUrl('http://10.0.0.1/r.git'))).toBe('REMOTE_INSECURE_HTTP');
    expect(parseRemoteUrl('http://git.example.com/r.git', { allowHttp: true }).url).toBe('http://git.example.com/r.git');
    expect(parseRemoteUrl('https://git.example.com/r.git/').url).toBe('https://git.example.com/r.git');
  });

  it('takes credentials out of the URL: the URL used and shown never holds them', () => {
    const endpoint = parseRemoteUrl('https://bob:p%40ss%3Aword@git.example.com/o/r.git');
    expect(endpoint).toEqual({ url: 'https://git.example.com/o/r.git', display: 'https://git.example.com/o/r.git', username: 'bob', password: 'p@ss:word' });
    expect(redactUrl('https://bob:secret@host/x')).toBe('https://***@host/x');
    // An unencoded "/" or "@" in the password, and a scheme-less user:password@host:path.
    expect(redactUrl('https://bob:se/cr@et@host/x')).toBe('https://***@host/x');
    expect(redactUrl('bob:secret@host:x.git')).toBe('***@host:x.git');
    expect(redactUrl('git@github.com:o/r.git')).toBe('git@github.com:o/r.git');
    for (const bad of ['https://bob:se/cret@host/x', 'bob:secret@host:x.git', 'https://bob:sec%ret@host/x']) {
      let thrown: unknown;
      try {
        parseRemoteUrl(bad);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, bad).toBeInstanceOf(ForgeError);
      expect(JSON.stringify([(thrown as ForgeError).message, (thrown as ForgeError).toJSON()]), bad).not.toMatch(/sec/);
    }
    expect(codeOf(() => parseRemoteUrl('https://bob:sec%ret@host/x'))).toBe('REMOTE_URL_INVALID');
    try {
      parseRemoteUrl('http://bob:secret@example.com/r.git');
    } catch (error) {
      expect(JSON.stringify((error as ForgeError).toJSON())).not.toContain('secret');
    }
  });

  it('credentials: the URL first, else FORGE_REMOTE_TOKEN with FORGE_REMOTE_USER or x-access-token', () => {
    const plain = parseRemoteUrl('https://example.com/r.git');
    expect(credentialsFromEnvironment(plain, {})).toBeNull();
    expect(credentialsFromEnvironment(plain, { FORGE_REMOTE_TOKEN: 't0k' })).toEqual({ username: 'x-access-token', password: 't0k' });
    expect(credentialsFromEnvironment(plain, { FORGE_REMOTE_TOKEN: 't0k', FORGE_REMOTE_USER: 'ci' })).toEqual({ username: 'ci', password: 't0k' });
    expect(credentialsFromEnvironment(parseRemoteUrl('https://u:p@example.com/r.git'), { FORGE_REMOTE_TOKEN: 't0k' })).toEqual({ username: 'u', password: 'p' });
    expect(basicAuthorization({ username: 'ü', password: 'p' })).toBe(`Basic ${Buffer.from('ü:p', 'utf8').toString('base64')}`);
  });
});
