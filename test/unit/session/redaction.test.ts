/** Issue 28, "Secrets never reach a commit": the rules, the markers, and the state walk. */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { applyRedactions, entropy, PatternScanner, Redactor, SessionStore, type SecretMatch, type SecretScanner } from '../../../src/session';
import { SCAN_SLICE_CHARS, slices } from '../../../src/session/redaction';
import { SecretlintScanner, ruleName } from '../../../src/session/node/secretlint-scanner';
import { MEMFS_BACKENDS } from '../../helpers/engine-repos';

const AWS = 'AKIA' + 'Z7VQ3X2MPL4KD9TY';
const GH = 'ghp_' + 'wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx';

async function redact(text: string, scanners = [new PatternScanner()]) {
  return new Redactor(scanners).redactAll([text]);
}

describe('secret redaction rules (issue 28)', () => {
  it('replaces an AWS access key, a private key block and a high-entropy assignment with markers naming the rule', async () => {
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----';
    const text = `export AWS_ACCESS_KEY_ID=${AWS}\n${key}\nDB_PASSWORD="q8Vz3kP0xL2mN7rT"\n`;
    const { texts, counts } = await redact(text);
    expect(texts[0]).toBe('export AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key]\n[REDACTED:private-key]\nDB_PASSWORD="[REDACTED:high-entropy-assignment]"\n');
    expect(Object.fromEntries(counts)).toEqual({ 'aws-access-key': 1, 'private-key': 1, 'high-entropy-assignment': 1 });
  });

  it('leaves words assigned to secret-looking names, and ordinary code, alone', async () => {
    const text = 'password = "example"\nconst token = getToken();\nAPI_KEY=changeme\nsecret: true\nfunction f(x) { return x + 1; }';
    expect((await redact(text)).texts[0]).toBe(text);
  });

  it('merges overlapping matches into one marker (the earliest rule named)', () => {
    expect(applyRedactions('a SECRETVALUE b', [{ rule: 'r1', start: 2, end: 8 }, { rule: 'r2', start: 5, end: 13 }]).text).toBe('a [REDACTED:r1] b');
  });

  it('entropy: random strings score high, repeated ones low', () => {
    expect(entropy('aaaaaaaaaaaa')).toBe(0);
    expect(entropy('q8Vz3kP0xL2mN7rT')).toBeGreaterThan(3.5);
  });

  it("user patterns (forge.redactPattern) are redacted as custom-pattern", async () => {
    expect((await redact('id ACME-123456 here', [new PatternScanner(['ACME-\\d{6}'])])).texts[0]).toBe('id [REDACTED:custom-pattern] here');
  });

  it("secretlint's recommended preset runs in-process and its findings become markers (github-token, slack-token)", async () => {
    const slack = 'xoxb-' + '123456789012-1234567890123-abcdefghijABCDEFGHIJklmn';
    const { texts, counts } = await new Redactor([new SecretlintScanner()]).redactAll(['clean text here', `token ${GH}`, `slack ${slack} end`]);
    expect(texts).toEqual(['clean text here', 'token [REDACTED:github-token]', 'slack [REDACTED:slack-token] end']);
    expect(Object.fromEntries(counts)).toEqual({ 'github-token': 1, 'slack-token': 1 });
    expect(ruleName('AWSAccessKeyID')).toBe('aws-access-key-id');
  });
});

describe('many texts are scanned a slice at a time', () => {
  it('gives a scanner at most SCAN_SLICE_CHARS of texts per call (a longer text alone), with the result of one scan', async () => {
    const texts = Array.from({ length: 400 }, (_, k) => (k % 97 === 0 ? `key ${k} AWS_SECRET=${AWS} ${'y'.repeat(k * 37)}` : `${k} ${'x'.repeat(1000 + ((k * 7919) % 3000))}`));
    texts.push('z'.repeat(SCAN_SLICE_CHARS * 2));
    const calls: number[] = [];
    const inner = new PatternScanner();
    const counting: SecretScanner = {
      name: 'counting',
      scan(given: readonly string[]): Promise<SecretMatch[][]> {
        calls.push(given.reduce((n, t) => n + t.length, 0));
        expect(given.length === 1 || calls[calls.length - 1]! <= SCAN_SLICE_CHARS).toBe(true);
        return inner.scan(given);
      },
    };
    const sliced = await new Redactor([counting]).redactAll(texts);
    expect(calls.length).toBeGreaterThan(5);
    expect(sliced).toEqual(await new Redactor([{ name: 'whole', scan: (given) => inner.scan(given) }]).redactAll(texts));
    expect(sliced.counts.get('aws-access-key')).toBe(5);
  });

  it('cuts texts into ranges that cover them in order', () => {
    expect(slices([], 10)).toEqual([]);
    expect(slices(['aaaa', 'bbbb', 'cc', 'dddddddddddd', 'e'], 10)).toEqual([[0, 3], [3, 4], [4, 5]]);
  });
});

describe('session states are redacted before they are written (issue 28)', () => {
  it('a secret in a prompt, a tool result and a commit message never reaches an object; the turn reports it', async () => {
    const handle = await MEMFS_BACKENDS[0]!.make({ files: { 'README.md': 'hi\n' } });
    const repo = await handle.open();
    const session = await new SessionStore(repo).create({ id: 'red', base: 'main' });
    await session.recordUserMessage(`deploy with ${AWS} please`);
    await session.recordMessage({ role: 'assistant', content: `I used GITHUB_TOKEN=${GH}` });
    const turn = await session.commitTurn({ message: `deploy ${AWS}` });
    expect(turn.redactions).toEqual([
      { rule: 'aws-access-key', count: 2 },
      { rule: 'github-token', count: 1 },
    ]);
    expect(turn.message).toContain('[REDACTED:aws-access-key]');
    const every = allObjectsText(handle.diskGitdir());
    expect(every).toContain('[REDACTED:aws-access-key]');
    expect(every).not.toContain(AWS);
    expect(every).not.toContain(GH);
    handle.fsck();
  });

  it('forge.redact=false in git config turns it off', async () => {
    const handle = await MEMFS_BACKENDS[0]!.make({ files: { 'README.md': 'hi\n' } });
    const config = `${handle.gitdir}/config`;
    const before = new TextDecoder().decode(await handle.fs.promises.readFile(config));
    await handle.fs.promises.writeFile(config, `${before}\n[forge]\n\tredact = false\n`);
    const session = await new SessionStore(await handle.open()).create({ id: 'off', base: 'main' });
    await session.recordUserMessage(`key ${AWS}`);
    const turn = await session.commitTurn();
    expect(turn.redactions).toEqual([]);
    expect(turn.message).toContain(AWS);
  });
});

/** Every object of the repository, as `git cat-file --batch-all-objects --batch` prints them. */
export function allObjectsText(gitdir: string): string {
  return execFileSync('git', ['--git-dir', gitdir, 'cat-file', '--batch-all-objects', '--batch'], { maxBuffer: 1 << 28 }).toString('latin1');
}
