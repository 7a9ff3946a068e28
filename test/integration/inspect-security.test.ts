/** The inspector's guards: which Host headers are the server's own, and the token comparison. */
import { describe, expect, it } from 'vitest';
import { isForgeError } from '../../src/errors';
import { allowedHosts, checkHost, checkToken } from '../../src/inspect/security';

const refusedWith = (code: string, run: () => void) => {
  try {
    run();
  } catch (error) {
    return isForgeError(error) && error.code === code;
  }
  return false;
};

describe('inspector guards', () => {
  it('accepts the loopback names with the port, refuses any other host or port', () => {
    const hosts = allowedHosts('127.0.0.1', 4321);
    for (const ok of ['127.0.0.1:4321', 'localhost:4321', 'LOCALHOST:4321', '[::1]:4321']) expect(() => checkHost(ok, hosts)).not.toThrow();
    for (const bad of [undefined, '', 'attacker.example:4321', '127.0.0.1:80', '127.0.0.1', 'localhost.attacker.example:4321']) {
      expect(refusedWith('INSPECT_HOST_REFUSED', () => checkHost(bad, hosts))).toBe(true);
    }
    expect([...allowedHosts('::1', 80)]).toContain('[::1]:80');
    expect([...allowedHosts('192.168.1.5', 80)]).toEqual(['192.168.1.5:80']);
  });

  it('accepts exactly the token', () => {
    expect(() => checkToken('s3cret', 's3cret')).not.toThrow();
    for (const bad of [undefined, '', 's3cre', 's3cret!', 'S3cret']) expect(refusedWith('INSPECT_TOKEN_INVALID', () => checkToken(bad, 's3cret'))).toBe(true);
  });
});
