/**
 * Live updates: while a page listens (server-sent events), the session branches are polled and
 * every branch that moved, appeared or disappeared is announced, so a page shows the turns a
 * running `forge run` commits without a reload. Polling reads the refs only (no objects).
 */
import type { ServerResponse } from 'node:http';
import type { Repository } from '../../git';
import { SESSION_REF_PREFIX } from '../../session';

export class LiveRefs {
  private readonly clients = new Set<ServerResponse>();
  private last = new Map<string, string>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private polling = false;

  constructor(
    private readonly repo: Repository,
    private readonly intervalMs = 700,
  ) {}

  async add(res: ServerResponse): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write('retry: 1000\n\n');
    if (this.clients.size === 0) this.last = await this.snapshot();
    this.clients.add(res);
    res.on('close', () => {
      this.clients.delete(res);
      if (this.clients.size === 0) this.stop();
    });
    this.timer ??= setInterval(() => void this.poll(), this.intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  close(): void {
    this.stop();
    for (const res of this.clients) res.end();
    this.clients.clear();
  }

  private async snapshot(): Promise<Map<string, string>> {
    return new Map((await this.repo.refs.list(SESSION_REF_PREFIX)).map(({ ref, oid }) => [ref.slice(SESSION_REF_PREFIX.length), oid]));
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const now = await this.snapshot();
      const changed: Array<{ id: string; head: string | null }> = [];
      for (const [id, head] of now) if (this.last.get(id) !== head) changed.push({ id, head });
      for (const id of this.last.keys()) if (!now.has(id)) changed.push({ id, head: null });
      this.last = now;
      if (changed.length > 0) {
        const message = `event: sessions\ndata: ${JSON.stringify({ changed })}\n\n`;
        for (const res of this.clients) res.write(message);
      }
    } catch {
      // A ref being rewritten mid-read: the next poll sees it settled.
    } finally {
      this.polling = false;
    }
  }
}
