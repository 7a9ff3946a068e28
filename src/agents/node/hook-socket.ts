/**
 * When forge agent mounts the session, its process holds the session (the mount is a writer), so
 * a hook run by the agent cannot commit from its own process: it checks its payload, then hands
 * the turn's end to forge agent over a Unix socket (one JSON line each way) and prints the answer.
 */
import { createConnection, createServer, type Server } from 'node:net';
import { ForgeError, toForgeError } from '../../errors';
import type { AgentName } from '../transcript';

export interface HookRequest {
  agent: AgentName;
  transcript: string;
  /** Claude Code's answer from the Stop payload (its transcript may not hold it yet). */
  lastAssistantMessage?: string;
}

export type HookReply = { ok: true; turns: number[]; lines: string[] } | { ok: false; error: { code: string; message: string } };

const MAX_LINE = 1 << 20;

export function serveHooks(path: string, handle: (request: HookRequest) => Promise<{ turns: number[]; lines: string[] }>): Promise<Server> {
  const server = createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      if (buffer.length > MAX_LINE) return void socket.destroy();
      const end = buffer.indexOf('\n');
      if (end < 0) return;
      const line = buffer.slice(0, end);
      buffer = '';
      void (async (): Promise<HookReply> => {
        try {
          const request = JSON.parse(line) as Partial<HookRequest>;
          if ((request.agent !== 'claude-code' && request.agent !== 'codex') || typeof request.transcript !== 'string') throw new ForgeError('AGENT_HOOK_REFUSED', 'A hook request names no agent or transcript.');
          const answer = typeof request.lastAssistantMessage === 'string' ? { lastAssistantMessage: request.lastAssistantMessage } : {};
          return { ok: true, ...(await handle({ agent: request.agent, transcript: request.transcript, ...answer })) };
        } catch (error) {
          const e = toForgeError(error);
          return { ok: false, error: { code: e.code, message: e.message } };
        }
      })().then((reply) => socket.end(JSON.stringify(reply) + '\n'));
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve(server));
  });
}

export function sendHook(path: string, request: HookRequest): Promise<HookReply> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(JSON.stringify(request) + '\n'));
    socket.on('data', (chunk: string) => (buffer += chunk));
    socket.on('error', (error) => reject(new ForgeError('AGENT_HOOK_REFUSED', `forge agent's hook socket ${path} does not answer (${error.message}); the turn is committed when the agent exits.`)));
    socket.on('end', () => {
      try {
        resolve(JSON.parse(buffer) as HookReply);
      } catch {
        reject(new ForgeError('AGENT_HOOK_REFUSED', `forge agent's hook socket ${path} gave no answer; the turn is committed when the agent exits.`));
      }
    });
  });
}
