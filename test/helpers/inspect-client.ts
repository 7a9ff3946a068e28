/**
 * A client of the inspector over HTTP that gets in as a person does: it opens the printed URL
 * (`/?token=…`), keeps the access cookie the server sets, reads the page token from the page
 * it is then served, and sends both (the token on POSTs) with every request.
 */
export interface InspectClient {
  cookie: string;
  pageToken: string;
  api(path: string, init?: RequestInit & { token?: boolean }): Promise<{ status: number; body: any }>;
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/** `url`: what forge inspect printed. */
export async function loginToInspector(url: string): Promise<InspectClient> {
  const origin = new URL('/', url).toString();
  const entry = await fetch(url, { redirect: 'manual', headers: { connection: 'close' } });
  if (entry.status !== 303) throw new Error(`the printed URL answered ${entry.status}, not a redirect setting the cookie`);
  const cookie = entry.headers.get('set-cookie')!.split(';')[0]!;
  const page = await (await fetch(origin, { headers: { cookie, connection: 'close' } })).text();
  const pageToken = /<meta name="forge-token" content="([^"]+)">/.exec(page)![1]!;
  // A connection per request: tests block the event loop (spawnSync of forge or git) between
  // requests for longer than the server keeps an idle connection, and a pooled socket the server
  // closed meanwhile would be reused and reset (ECONNRESET).
  const get = (path: string, init: RequestInit = {}) => fetch(new URL(path, origin), { ...init, headers: { cookie, connection: 'close', ...(init.headers as Record<string, string> | undefined) } });
  return {
    cookie,
    pageToken,
    fetch: get,
    async api(path, init = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (init.token !== false && init.method === 'POST') headers['x-forge-token'] = pageToken;
      const res = await get(`/api${path}`, { ...init, headers });
      return { status: res.status, body: await res.json() };
    },
  };
}
