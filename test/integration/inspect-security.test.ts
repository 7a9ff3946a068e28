/** The inspector's guards: which Host headers are the server's own, and the token comparison. */
import { describe, expect, it } from 'vitest';
import { isForgeError } from '../../src/errors';
import { accessCookie, allowedHosts, checkAccess, checkHost, checkToken, cookieValue, isLoopback } from '../../src/inspect/security';

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
    // Issue 24: the person at the machine always gets in by a loopback name, whatever the bound address.
    expect([...allowedHosts('192.168.1.5', 80)].sort()).toEqual(['127.0.0.1:80', '192.168.1.5:80', '[::1]:80', 'localhost:80']);
    // A wildcard bind: the machine's own addresses and name, never "0.0.0.0" itself.
    const wildcard = allowedHosts('0.0.0.0', 80, ['10.0.0.7', 'fe80::1', 'box']);
    expect([...wildcard].sort()).toEqual(['10.0.0.7:80', '127.0.0.1:80', '[::1]:80', '[fe80::1]:80', 'box:80', 'localhost:80']);
    expect(refusedWith('INSPECT_HOST_REFUSED', () => checkHost('0.0.0.0:80', wildcard))).toBe(true);
  });

  it('binding beyond loopback is told apart from loopback', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) expect([host, isLoopback(host)]).toEqual([host, true]);
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'example.com']) expect([host, isLoopback(host)]).toEqual([host, false]);
  });

  it('reads the access cookie among others, and sets it HttpOnly and SameSite=Strict', () => {
    expect(cookieValue('a=1; forge-inspect-80=s3cret; b=2', 'forge-inspect-80')).toBe('s3cret');
    expect(cookieValue('forge-inspect-8080=x', 'forge-inspect-80')).toBeUndefined();
    expect(accessCookie('forge-inspect-80', 'v')).toBe('forge-inspect-80=v; HttpOnly; SameSite=Strict; Path=/');
    expect(refusedWith('INSPECT_ACCESS_DENIED', () => checkAccess(undefined, 'v'))).toBe(true);
    expect(refusedWith('INSPECT_ACCESS_DENIED', () => checkAccess('w', 'v'))).toBe(true);
    expect(() => checkAccess('v', 'v')).not.toThrow();
  });

  it('accepts exactly the token', () => {
    expect(() => checkToken('s3cret', 's3cret')).not.toThrow();
    for (const bad of [undefined, '', 's3cre', 's3cret!', 'S3cret']) expect(refusedWith('INSPECT_TOKEN_INVALID', () => checkToken(bad, 's3cret'))).toBe(true);
  });
});
