/** The judgement of incoming lines (src/mcp/incoming.ts), without a process: the cases the integration test does not send. */
import { describe, expect, it } from 'vitest';
import { checkIncomingLine, oversizeReply } from '../../../src/mcp/incoming';

describe('checkIncomingLine', () => {
  it('passes valid requests, notifications and responses through, and ignores blank lines', () => {
    expect(checkIncomingLine('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toMatchObject({ kind: 'message', message: { id: 1, method: 'ping' } });
    expect(checkIncomingLine('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toMatchObject({ kind: 'message' });
    expect(checkIncomingLine('{"jsonrpc":"2.0","id":"r","result":{}}')).toMatchObject({ kind: 'message' });
    expect(checkIncomingLine('   \r')).toBeNull();
  });

  it('answers a fractional id without echoing it, and never answers a malformed notification', () => {
    expect(checkIncomingLine('{"jsonrpc":"2.0","id":1.5,"method":"ping"}')).toEqual({ kind: 'reject', problem: expect.any(String), replies: [{ jsonrpc: '2.0', error: { code: -32600, message: expect.stringContaining('"id" must be') } }] });
    expect(checkIncomingLine('{"jsonrpc":"1.0","method":"notifications/initialized"}')).toEqual({ kind: 'reject', replies: [], problem: expect.any(String) });
    expect(checkIncomingLine('[]')).toMatchObject({ kind: 'reject', replies: [{ error: { code: -32600 } }] });
    expect(checkIncomingLine('42')).toMatchObject({ kind: 'reject', replies: [{ error: { code: -32600 } }] });
    // Positional params are valid JSON-RPC that fits no MCP method: -32602; a primitive is not structured: -32600.
    expect(checkIncomingLine('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":["read_file",{}]}')).toMatchObject({ kind: 'reject', replies: [{ id: 3, error: { code: -32602, message: expect.stringContaining('not an array') } }] });
    expect(checkIncomingLine('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":"read_file"}')).toMatchObject({ kind: 'reject', replies: [{ id: 4, error: { code: -32600 } }] });
    expect(checkIncomingLine('{"jsonrpc":"2.0","method":"notifications/initialized","params":[]}')).toMatchObject({ kind: 'reject', replies: [] });
  });
});

describe('oversizeReply', () => {
  it('takes the id from the start of the line when it comes before params, and only for a request', () => {
    expect(oversizeReply('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"content":"xx', 2e7).id).toBe(7);
    expect(oversizeReply('{"method":"tools/call","id":"a\\"b","params":{', 2e7).id).toBe('a"b');
    // An "id" inside params is not the message's id.
    expect(oversizeReply('{"jsonrpc":"2.0","method":"tools/call","params":{"id":9,"x":"', 2e7).id).toBeUndefined();
    expect(oversizeReply('{"jsonrpc":"2.0","id":3,"result":{"content":"', 2e7).id).toBeUndefined();
    expect(oversizeReply('{"jsonrpc":"2.0","id":1.5,"method":"x","params":{', 2e7).id).toBeUndefined();
    // The MCP SDK's client puts the id last: found at the line's end, as the message's last member.
    expect(oversizeReply('{"method":"tools/call","params":{"name":"w","arguments":{"c":"xx', 2e7, undefined, 'xxxx"}},"jsonrpc":"2.0","id":12}').id).toBe(12);
    expect(oversizeReply('{"method":"tools/call","params":{"c":"xx', 2e7, undefined, 'xx"},"id":"a-1" } ').id).toBe('a-1');
    // An id that closes a nested object, or sits inside a string, is not the message's.
    expect(oversizeReply('{"method":"tools/call","params":{"c":"xx', 2e7, undefined, 'xx","o":{"id":3}}}').id).toBeUndefined();
    expect(oversizeReply('{"method":"tools/call","params":{"c":"xx', 2e7, undefined, 'xx\\",\\"id\\":4}"}}').id).toBeUndefined();
    expect(oversizeReply('{"id":1,"method":"m"', 20_000_000, 10).error).toEqual({ code: -32600, message: expect.stringMatching(/^Invalid request: the message is 20000000 bytes \(19\.1 MiB\); this server reads messages of at most 10 bytes/) });
  });
});
