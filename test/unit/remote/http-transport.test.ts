/** The transport's refusals: 401 and 403 are REMOTE_AUTH_FAILED naming the remote (never its credentials), a broken connection REMOTE_UNREACHABLE. */
import { describe, expect, it } from 'vitest';
import { ForgeError } from '../../../src/errors';
import { HttpTransport, parseRemoteUrl, type FetchFunction } from '../../../src/remote';

async function refusal(status: number | 'broken'): Promise<ForgeError> {
  const sent: Array<Record<string, string>> = [];
  const fetch: FetchFunction = async (_url, init) => {
    sent.push(init.headers);
    if (status === 'broken') throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
    return new Response('denied', { status });
  };
  const transport = new HttpTransport(parseRemoteUrl('https://alice:s3cr3t-t0ken@git.example.com/team/app.git'), { credentials: { username: 'alice', password: 's3cr3t-t0ken' }, fetch, name: 'origin' });
  const error = await transport.advertisement('git-receive-pack').then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(ForgeError);
  // The credentials went out as a header, and only there.
  expect(sent[0]!.Authorization).toBe(`Basic ${Buffer.from('alice:s3cr3t-t0ken').toString('base64')}`);
  expect(JSON.stringify([(error as ForgeError).message, (error as ForgeError).toJSON()])).not.toContain('s3cr3t');
  return error as ForgeError;
}

describe('HttpTransport refusals', () => {
  it('401 and 403 are REMOTE_AUTH_FAILED naming the remote and the status', async () => {
    for (const status of [401, 403]) {
      const error = await refusal(status);
      expect(error.code).toBe('REMOTE_AUTH_FAILED');
      expect(error.message).toBe(`Remote origin (https://git.example.com/team/app.git) refused the credentials given (HTTP ${status}).`);
      expect(error.data).toMatchObject({ remote: 'origin (https://git.example.com/team/app.git)', status });
    }
  });

  it('a connection that breaks is REMOTE_UNREACHABLE with the cause', async () => {
    const error = await refusal('broken');
    expect(error.code).toBe('REMOTE_UNREACHABLE');
    expect(error.message).toContain('ECONNRESET');
  });
});
