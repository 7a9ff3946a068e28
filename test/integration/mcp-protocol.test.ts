/**
 * The MCP server under malformed traffic (issue 12 §6), over raw stdio lines against the real
 * `node dist/cli.js mcp` process: every malformed message that carries an id gets its JSON-RPC
 * error (-32700, -32600, -32602), a message over the 10 MiB limit is answered and skipped, and the
 * server keeps serving the requests after each of them.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { FORGE_BIN } from '../helpers/forge-cli';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { expectFsckClean } from '../helpers/fsck';
import { copyFixture, type RepoHandle } from '../helpers/repos';

type Message = { jsonrpc: string; id?: string | number; result?: Record<string, unknown>; error?: { code: number; message: string }; method?: string };

interface RawServer {
  send(line: string | Buffer): void;
  /** The next message from the server with this id (or, for undefined, the next error without one). */
  reply(id: string | number | undefined): Promise<Message>;
  messages: Message[];
  exited(): Promise<number | null>;
  child: ChildProcessWithoutNullStreams;
}

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

function startRaw(repo: RepoHandle, args: string[]): RawServer {
  const child = spawn(process.execPath, [FORGE_BIN, 'mcp', '--repo', repo.dir, ...args], { env: hermeticGitEnv() });
  const messages: Message[] = [];
  const waiters: Array<() => void> = [];
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) !== -1) {
      messages.push(JSON.parse(buffered.slice(0, newline)) as Message);
      buffered = buffered.slice(newline + 1);
    }
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.resume();
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  onTestFinished(async () => {
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exit;
    clearTimeout(timer);
  });
  const taken = new Set<Message>();
  const find = (id: string | number | undefined) =>
    messages.find((m) => !taken.has(m) && m.method === undefined && (id === undefined ? !('id' in m) : m.id === id));
  return {
    child,
    messages,
    send: (line) => {
      child.stdin.write(line);
      child.stdin.write('\n');
    },
    reply: async (id) => {
      for (;;) {
        const found = find(id);
        if (found) {
          taken.add(found);
          return found;
        }
        if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}) without answering ${JSON.stringify(id)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          child.once('exit', () => resolve());
        });
      }
    },
    exited: () => exit,
  };
}

async function initialized(repo: RepoHandle, args: string[] = ['--session', 's']): Promise<RawServer> {
  const server = startRaw(repo, args);
  server.send(INIT);
  expect((await server.reply(0)).result).toMatchObject({ serverInfo: { name: 'forge' } });
  server.send(INITIALIZED);
  return server;
}

const call = (id: number, name: string, args: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('forge mcp: malformed JSON-RPC traffic', () => {
  it('answers each malformed message that has an id with -32600, an unparseable line with -32700, and keeps serving', async () => {
    const repo = copyFixture('example-app');
    const server = await initialized(repo);

    server.send('{"jsonrpc":"1.0","id":1,"method":"tools/list"}');
    expect(await server.reply(1)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, message: expect.stringContaining('"jsonrpc" must be "2.0"') } });

    server.send('{"jsonrpc":"2.0","id":2}');
    expect((await server.reply(2)).error).toMatchObject({ code: -32600, message: expect.stringContaining('"method"') });

    server.send('{"jsonrpc":"2.0","id":"three","method":7}');
    expect((await server.reply('three')).error?.code).toBe(-32600);

    // An id that is neither a string nor an integer cannot be echoed: the error carries none.
    server.send('{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}');
    expect(await server.reply(undefined)).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: expect.stringContaining('"id" must be a string or an integer') } });

    // MCP has no batches: each element with an id gets its own error.
    server.send('[{"jsonrpc":"2.0","id":4,"method":"tools/list"},{"jsonrpc":"2.0","id":5,"method":"ping"}]');
    expect((await server.reply(4)).error?.code).toBe(-32600);
    expect((await server.reply(5)).error?.message).toMatch(/batches are not supported/);

    server.send('{"jsonrpc":"2.0","id":6,"method":"tools/list"');
    expect(await server.reply(undefined)).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: expect.stringMatching(/^Parse error: /) } });
    server.send('not json at all');
    expect((await server.reply(undefined)).error?.code).toBe(-32700);

    // A malformed notification is never answered; the next request is.
    server.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":"nope"}');
    server.send('{"jsonrpc":"2.0","id":7,"method":"tools/list"}');
    const list = await server.reply(7);
    expect((list.result!.tools as unknown[]).length).toBeGreaterThan(5);
    expect(server.messages.filter((m) => m.error !== undefined && !('id' in m))).toHaveLength(3);
  });

  it('answers params of the wrong type with -32602 (not -32603), for tools/call and the other methods', async () => {
    const repo = copyFixture('example-app');
    const server = await initialized(repo);
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 5, arguments: {} } }));
    expect((await server.reply(1)).error).toMatchObject({ code: -32602, message: expect.stringContaining('params.name') });
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read_file', arguments: 'src/math.js' } }));
    expect((await server.reply(2)).error).toMatchObject({ code: -32602, message: expect.stringContaining('params.arguments') });
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call' }));
    expect((await server.reply(3)).error?.code).toBe(-32602);
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 42 } }));
    expect((await server.reply(4)).error?.code).toBe(-32602);
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: { cursor: 1 } }));
    expect((await server.reply(5)).error?.code).toBe(-32602);
    // Wrong tool arguments stay a tool result with their stable code (the model can act on it).
    server.send(call(6, 'read_file', { path: 3 }));
    const wrongArgs = (await server.reply(6)).result as { isError: boolean; content: Array<{ text: string }> };
    expect(wrongArgs.isError).toBe(true);
    expect(wrongArgs.content[0]!.text).toMatch(/^TOOL_INPUT_INVALID: /);
    // An unknown method is -32601 from the SDK, as before.
    server.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'no/such', params: {} }));
    expect((await server.reply(7)).error?.code).toBe(-32601);
  });

  it('answers a message over 10 MiB with an error and keeps serving; an 8 MB write works and is committed', async () => {
    const repo = copyFixture('example-app');
    const server = await initialized(repo);
    // Over the limit, sent in pieces as a pipe delivers it; the id is found at the line's start.
    const huge = call(1, 'write_file', { path: 'huge.txt', content: 'x'.repeat(11 * 1024 * 1024) });
    for (let at = 0; at < huge.length; at += 1 << 20) server.child.stdin.write(huge.slice(at, at + (1 << 20)));
    server.child.stdin.write('\n');
    const refused = await server.reply(1);
    expect(refused.error).toMatchObject({ code: -32600, message: expect.stringMatching(/^Invalid request: the message is 1153\d{4} bytes .*at most 10485760 bytes/) });
    // As the MCP SDK's client writes a request (method, params, jsonrpc, id): the id is found at the line's end.
    const sdkOrder = JSON.stringify({ method: 'tools/call', params: { name: 'write_file', arguments: { path: 'huge2.txt', content: 'x'.repeat(10 * 1024 * 1024) } }, jsonrpc: '2.0', id: 'last-9' });
    for (let at = 0; at < sdkOrder.length; at += 1 << 20) server.child.stdin.write(sdkOrder.slice(at, at + (1 << 20)));
    server.child.stdin.write('\n');
    expect((await server.reply('last-9')).error?.code).toBe(-32600);

    const big = 'y'.repeat(8 * 1000 * 1000);
    server.send(call(2, 'write_file', { path: 'big.txt', content: big }));
    expect((await server.reply(2)).result).toMatchObject({ structuredContent: { path: 'big.txt', created: true, bytes: big.length } });
    // Two messages in one write whose sum is over the limit are each fine.
    const half = 'z'.repeat(6 * 1024 * 1024);
    server.child.stdin.write(`${call(3, 'write_file', { path: 'a.txt', content: half })}\n${call(4, 'write_file', { path: 'b.txt', content: half })}\n`);
    expect((await server.reply(3)).result?.isError).toBeFalsy();
    expect((await server.reply(4)).result?.isError).toBeFalsy();
    server.send(call(5, 'commit_turn', {}));
    expect((await server.reply(5)).result?.isError).toBeFalsy();
    expect(git(repo.dir, ['cat-file', '-s', 'forge/session/s:big.txt']).stdout.trim()).toBe(String(big.length));
    expect(git(repo.dir, ['cat-file', '-e', 'forge/session/s:huge.txt'], { allowFail: true }).status).not.toBe(0);
    expectFsckClean(repo.gitdir);
    server.child.stdin.end();
    expect(await server.exited()).toBe(0);
  });
});
