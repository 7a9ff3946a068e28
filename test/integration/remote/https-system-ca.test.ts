/**
 * https remotes trust the system's CA store, as git does (issue 17: "https with the system's CA
 * store"): a server whose certificate a private CA signed is reached once that CA is in the
 * store forge reads (SSL_CERT_FILE here, as OpenSSL and git read it), and refused as
 * REMOTE_UNREACHABLE, naming the certificate problem and never the password, when it is not.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemCaBundle } from '../../../src/remote/node/system-ca-fetch';
import { git } from '../../helpers/git-cli';
import { startGitHttpServer, type GitHttpServer } from '../../helpers/http-backend';
import { makeRepo } from '../../helpers/repos';
import { makeTempDir } from '../../helpers/temp';
import { privateCa } from '../../helpers/tls';
import { forgeAsync, rev, USERS } from './remote-harness';

describe('https remotes and the system CA store', () => {
  let server: GitHttpServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('pushes to a server signed by a CA in the system store, and refuses one that is not, clearly', async () => {
    const root = makeTempDir('https');
    const tls = privateCa(root);
    const serverRepo = join(root, 'server.git');
    git(root, ['init', '-q', '--bare', serverRepo]);
    git(serverRepo, ['config', 'http.receivepack', 'true']);
    const seed = makeRepo({ files: { 'README.md': '# app\n' } });
    git(seed.dir, ['push', '-q', serverRepo, 'HEAD:refs/heads/main']);
    server = await startGitHttpServer({ root, users: USERS, tls: { key: tls.key, cert: tls.cert } });
    const local = join(root, 'local');
    git(root, ['clone', '-q', serverRepo, local]);
    git(local, ['remote', 'set-url', 'origin', server.url('server.git', 'alice')]);
    expect((await forgeAsync(['session', 'new', '--repo', local, '--id', 's1'])).status).toBe(0);

    // Not in the store forge reads: the certificate is refused, with its reason, and no password.
    const untrusted = await forgeAsync(['push', '--repo', local, 's1'], { SSL_CERT_FILE: join(root, 'missing.pem') });
    expect(untrusted.status).not.toBe(0);
    expect(untrusted.stderr).toContain('REMOTE_UNREACHABLE');
    expect(untrusted.stderr).toMatch(/CERT|certificate/i);
    expect(untrusted.stderr).not.toContain(USERS.alice);
    expect(rev(serverRepo, 'refs/heads/forge/session/s1')).toBeNull();

    const trusted = await forgeAsync(['push', '--repo', local, 's1'], { SSL_CERT_FILE: tls.ca });
    expect(trusted.status, trusted.stderr).toBe(0);
    expect(rev(serverRepo, 'refs/heads/forge/session/s1')).toBe(rev(local, 'refs/heads/forge/session/s1'));
  });

  it('reads SSL_CERT_FILE first, else the first usual bundle that holds certificates', () => {
    const dir = makeTempDir('bundles');
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    writeFileSync(join(dir, 'b.pem'), pem);
    writeFileSync(join(dir, 'empty.pem'), '');
    expect(systemCaBundle({}, [join(dir, 'none.pem'), join(dir, 'empty.pem'), join(dir, 'b.pem')])).toBe(pem);
    expect(systemCaBundle({ SSL_CERT_FILE: join(dir, 'b.pem') }, [])).toBe(pem);
    expect(systemCaBundle({ SSL_CERT_FILE: join(dir, 'none.pem') }, [join(dir, 'b.pem')])).toBeNull();
  });
});
