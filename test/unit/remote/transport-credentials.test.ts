/**
 * Issue 23 §2 and §3, the transport's rules with a scripted fetch: credentials bound to the
 * origin they were given for (a same-origin redirect keeps them, another origin never sees them,
 * a helper's answer is bound to the origin it was asked about), the redirect rules on every hop,
 * and control characters escaped wherever remote text is quoted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeControl, ForgeError } from '../../../src/errors';
import { HttpTransport, parseRemoteUrl, type CredentialHelper, type Credentials, type FetchFunction } from '../../../src/remote';
import { parseReportStatus } from '../../../src/remote/receive-pack';
import { concatBytes, FLUSH_PKT, pktLine } from '../../../src/remote/pkt-line';

const ADVERTISEMENT = concatBytes([pktLine('# service=git-upload-pack\n'), FLUSH_PKT, pktLine(`${'a'.repeat(40)} refs/heads/main\0side-band-64k\n`), FLUSH_PKT]);

type Answer = { status: number; location?: string } | 'ok';

function scripted(answers: Record<string, Answer | Answer[]>): { fetch: FetchFunction; seen: Array<{ url: string; authorization: string | undefined; redirect: string }> } {
  const seen: Array<{ url: string; authorization: string | undefined; redirect: string }> = [];
  const fetch: FetchFunction = async (url, init) => {
    seen.push({ url, authorization: init.headers.Authorization, redirect: init.redirect });
    const entry = answers[url];
    const answer = Array.isArray(entry) ? entry.shift() : entry;
    if (answer === undefined) throw new Error(`unexpected request ${url}`);
    if (answer === 'ok') return new Response(ADVERTISEMENT as Uint8Array<ArrayBuffer>, { status: 200 });
    return new Response('', { status: answer.status, headers: answer.location ? { Location: answer.location } : {} });
  };
  return { fetch, seen };
}

const ALICE: Credentials = { username: 'alice', password: 's3cret' };
const AUTH = `Basic ${btoa('alice:s3cret')}`;
const INFO = '/info/refs?service=git-upload-pack';

async function attempt(transport: HttpTransport): Promise<ForgeError | null> {
  return transport.advertisement('git-upload-pack').then(
    () => null,
    (e: unknown) => e as ForgeError,
  );
}

describe('issue 23 §2: credentials stay with their origin', () => {
  it('a same-origin redirect keeps them; another origin never gets them; the fetch never follows redirects itself', async () => {
    const { fetch, seen } = scripted({
      [`https://git.example.com/app.git${INFO}`]: { status: 301, location: `/moved/app.git${INFO}` },
      [`https://git.example.com/moved/app.git${INFO}`]: { status: 302, location: `https://evil.example.net/app.git${INFO}` },
      [`https://evil.example.net/app.git${INFO}`]: 'ok',
    });
    const transport = new HttpTransport(parseRemoteUrl('https://git.example.com/app.git'), { credentials: ALICE, fetch });
    expect(await attempt(transport)).toBeNull();
    expect(seen.map((s) => s.authorization)).toEqual([AUTH, AUTH, undefined]);
    expect(seen.every((s) => s.redirect === 'manual')).toBe(true);
    expect(transport.warnings).toEqual(['redirected to https://evil.example.net/app.git (credentials for https://git.example.com are not sent there)']);
  });

  it('a port or scheme change is another origin too', async () => {
    const { fetch, seen } = scripted({
      [`https://git.example.com/app.git${INFO}`]: { status: 302, location: `https://git.example.com:8443/app.git${INFO}` },
      [`https://git.example.com:8443/app.git${INFO}`]: 'ok',
    });
    await attempt(new HttpTransport(parseRemoteUrl('https://git.example.com/app.git'), { credentials: ALICE, fetch }));
    expect(seen.map((s) => s.authorization)).toEqual([AUTH, undefined]);
  });

  it('a credential helper is asked for the origin that answered 401, and its answer goes only there; approve once after success', async () => {
    const calls: string[] = [];
    const helper: CredentialHelper = {
      fill: async (url) => (calls.push(`fill ${url}`), { username: 'bob', password: 'helper-pw' }),
      approve: async (url, c) => void calls.push(`approve ${url} ${c.username}`),
      reject: async (url, c) => void calls.push(`reject ${url} ${c.username}`),
    };
    const { fetch, seen } = scripted({
      [`https://git.example.com/app.git${INFO}`]: { status: 302, location: `https://mirror.example.org/app.git${INFO}` },
      [`https://mirror.example.org/app.git${INFO}`]: [{ status: 401 }, 'ok'],
    });
    const transport = new HttpTransport(parseRemoteUrl('https://git.example.com/app.git'), { credentials: ALICE, credentialHelper: helper, fetch });
    expect(await attempt(transport)).toBeNull();
    expect(seen.map((s) => s.authorization)).toEqual([AUTH, undefined, `Basic ${btoa('bob:helper-pw')}`]);
    expect(calls).toEqual(['fill https://mirror.example.org/app.git', 'approve https://mirror.example.org/app.git bob']);
  });

  it('a helper answer the server refuses is rejected, and not asked again', async () => {
    const calls: string[] = [];
    const helper: CredentialHelper = {
      fill: async () => (calls.push('fill'), ALICE),
      approve: async () => void calls.push('approve'),
      reject: async () => void calls.push('reject'),
    };
    const { fetch } = scripted({ [`https://git.example.com/app.git${INFO}`]: [{ status: 401 }, { status: 401 }] });
    const error = await attempt(new HttpTransport(parseRemoteUrl('https://git.example.com/app.git'), { credentialHelper: helper, fetch }));
    expect(error?.code).toBe('REMOTE_AUTH_FAILED');
    expect(calls).toEqual(['fill', 'reject']);
  });
});

describe('issue 23 §2: which redirects are followed', () => {
  const refused = async (location: string, from = 'https://git.example.com/app.git', allowHttp = false): Promise<ForgeError | null> => {
    const { fetch, seen } = scripted({ [`${from}${INFO}`]: { status: 302, location } });
    const error = await attempt(new HttpTransport(parseRemoteUrl(from, { allowHttp }), { credentials: ALICE, fetch, allowHttp }));
    expect(seen).toHaveLength(1);
    return error;
  };

  it('https -> http, non-http schemes, plain http away from loopback, and a target that is no advertisement are refused before any request', async () => {
    expect((await refused(`http://git.example.com/app.git${INFO}`))?.message).toContain('from https down to plain http');
    expect((await refused(`http://127.0.0.1/app.git${INFO}`))?.message).toContain('from https down to plain http');
    expect((await refused(`file:///etc/app.git${INFO}`))?.message).toContain('file is not http(s)');
    expect((await refused(`http://10.0.0.8/app.git${INFO}`, 'http://127.0.0.1:9/app.git'))?.message).toContain('not loopback');
    expect((await refused('https://git.example.com/elsewhere', 'https://git.example.com/app.git'))?.message).toContain('does not end in /info/refs');
    expect((await refused(''))?.code).toBe('REMOTE_REDIRECT_REFUSED');
  });

  it('--allow-http lets an http remote hop to another http host, never https down to http', async () => {
    const { fetch } = scripted({ [`http://git.lan/app.git${INFO}`]: { status: 302, location: `http://git2.lan/app.git${INFO}` }, [`http://git2.lan/app.git${INFO}`]: 'ok' });
    expect(await attempt(new HttpTransport(parseRemoteUrl('http://git.lan/app.git', { allowHttp: true }), { fetch, allowHttp: true }))).toBeNull();
    expect((await refused(`http://git.lan/app.git${INFO}`, 'https://git.example.com/app.git', true))?.message).toContain('down to plain http');
  });

  it('a Location with user:password is never shown', async () => {
    const error = await refused(`ftp://mallory:stolen@evil.example.net/x`);
    expect(JSON.stringify([error?.message, error?.toJSON()])).not.toContain('stolen');
  });
});

describe('issue 23 §3: control characters in remote text are escaped', () => {
  it('escapeControl leaves no C0, DEL, C1, line separator or bidi control, and changes nothing else', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const escaped = escapeControl(text);
        expect(escaped).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
        if (!/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(text)) expect(escaped).toBe(text);
      }),
    );
    expect(escapeControl('a\x1b]0;t\x07b\u202e')).toBe('a\\x1b]0;t\\x07b\\u202e');
  });

  it("a push report's refusal reason and unpack status are escaped", () => {
    const body = concatBytes([pktLine('unpack \x1b[2Jok\n'), pktLine('ng refs/heads/forge/session/s1 hook \x1b]0;owned\x07 declined\n'), FLUSH_PKT]);
    const report = parseReportStatus(body, false, 'origin');
    expect(report.unpack).toBe('\\x1b[2Jok');
    expect(report.refs.get('refs/heads/forge/session/s1')).toBe('hook \\x1b]0;owned\\x07 declined');
  });
});
