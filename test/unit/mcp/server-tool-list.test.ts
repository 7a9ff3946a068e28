/** ForgeMcpServer's tools/list in process: filtered by the session's mode, built once per mode. */
import { describe, expect, it } from 'vitest';
import { ForgeMcpServer } from '../../../src/mcp/server';
import { SessionStore } from '../../../src/session';
import { allowAll, BUILTIN_TOOLS } from '../../../src/tools';
import { BACKENDS } from '../../helpers/engine-repos';

const memfs = BACKENDS[0]!;

async function server(mode: 'restricted' | 'unrestricted') {
  const repo = await memfs.make({ files: { 'a.txt': 'a\n' } });
  const session = await new SessionStore(await repo.open()).create({ id: 'list', base: 'main', mode });
  return { session, forge: new ForgeMcpServer({ session, approval: allowAll, version: '0.0.0' }) };
}

describe('ForgeMcpServer.listTools', () => {
  it('offers in restricted mode only what the mode allows, and builds each mode list once', async () => {
    const { session, forge } = await server('restricted');
    const restricted = forge.listTools();
    expect(forge.listTools()).toBe(restricted);
    const allowed = BUILTIN_TOOLS.filter((t) => t.allowedInRestricted ?? !t.sideEffects).map((t) => t.name);
    expect(restricted.map((t) => t.name)).toEqual([...allowed, 'commit_turn', 'session_status']);
    session.state.mode = 'unrestricted';
    const unrestricted = forge.listTools();
    expect(unrestricted.map((t) => t.name)).toEqual([...BUILTIN_TOOLS.map((t) => t.name), 'commit_turn', 'session_status']);
    expect(forge.listTools()).toBe(unrestricted);
  });
});
