/** Issue 28, "Secrets never reach a commit": forge turn reports redactions; forge push refuses unredacted states unless --force. */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { forge } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { makeRepo } from '../helpers/repos';

const AWS = 'AKIA' + 'M2XQ8ZK4RT7VW3PL';

describe('redaction through the CLI (issue 28)', () => {
  it('forge turn --json names the redactions, and no object holds the secret', () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'r1']).status).toBe(0);
    const run = forge(['turn', '--repo', repo.dir, '--session', 'r1', '--calls', '-', '--json', '--message', `use ${AWS}`], { input: JSON.stringify([{ tool: 'write_file', args: { path: 'b.txt', content: 'b\n' } }]) });
    expect(run.status, run.stderr).toBe(0);
    // Once: the commit message's subject is made from the prompt already redacted.
    expect(run.json().redactions).toEqual([{ rule: 'aws-access-key', count: 1 }]);
    expect(execFileSync('git', ['-C', repo.dir, 'cat-file', '--batch-all-objects', '--batch']).toString('latin1')).not.toContain(AWS);
    expectFsckClean(repo.gitdir);
  });

  it('forge push refuses a session whose committed state holds a secret (written with forge.redact=false) unless --force', () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    execFileSync('git', ['-C', repo.dir, 'config', 'forge.redact', 'false']);
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'r2']).status).toBe(0);
    expect(forge(['turn', '--repo', repo.dir, '--session', 'r2', '--calls', '-', '--message', `use ${AWS}`], { input: '[]' }).status).toBe(0);
    const refused = forge(['push', 'r2', '--repo', repo.dir, '--remote', 'http://127.0.0.1:9/repo.git', '--json']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('SECRETS_IN_SESSION');
    expect(refused.stderr).toContain('aws-access-key');
    // --force goes on to the remote (here: nothing listens, so it fails reaching it, not on the secret).
    const forced = forge(['push', 'r2', '--repo', repo.dir, '--remote', 'http://127.0.0.1:9/repo.git', '--force', '--json']);
    expect(forced.stderr).not.toContain('SECRETS_IN_SESSION');
    expect(forced.stderr).toContain('REMOTE_UNREACHABLE');
  });
});
