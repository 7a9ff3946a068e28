/**
 * A loopback mock of the Anthropic Messages API as Claude Code calls it (POST /v1/messages,
 * streamed as server-sent events): each request is answered by a script function of the request
 * body, so a test scripts a model that reads, edits, runs a command and answers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptedBlock = { text: string } | { id: string; name: string; input: unknown };
export interface ScriptedAnswer {
  blocks: ScriptedBlock[];
  stop: 'end_turn' | 'tool_use';
}

export interface AnthropicMock {
  url: string;
  requests: any[];
  close(): Promise<void>;
}

function stream(res: import('node:http').ServerResponse, answer: ScriptedAnswer, model: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send('message_start', { message: { id: `msg_${Math.random().toString(36).slice(2)}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } });
  answer.blocks.forEach((b, index) => {
    if ('text' in b) {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: b.text } });
    } else {
      send('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
    }
    send('content_block_stop', { index });
  });
  send('message_delta', { delta: { stop_reason: answer.stop, stop_sequence: null }, usage: { output_tokens: 5 } });
  send('message_stop', {});
  res.end();
}

export async function startAnthropicMock(script: (body: any) => ScriptedAnswer, model = 'claude-mock-1'): Promise<AnthropicMock> {
  const requests: any[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      let body: any = {};
      try {
        body = JSON.parse(text);
      } catch {
        body = {};
      }
      requests.push({ path: req.url, body });
      if (!req.url?.startsWith('/v1/messages')) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
      if (req.url.includes('count_tokens')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 10 }));
      const answer = script(body);
      if (body.stream) return stream(res, answer, model);
      const content = answer.blocks.map((b) => ('text' in b ? { type: 'text', text: b.text } : { type: 'tool_use', ...b }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'msg_x', type: 'message', role: 'assistant', model, content, stop_reason: answer.stop, usage: { input_tokens: 10, output_tokens: 5 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
