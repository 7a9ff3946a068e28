/**
 * The page's calls to the inspector API. Reads are plain GETs; changes are POSTs carrying the
 * token this page received in its HTML (a page from another site cannot read it). A refusal
 * arrives as {error: {code, message, hint}} and is thrown as an ApiError keeping the code.
 */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

const token = document.querySelector<HTMLMetaElement>('meta[name="forge-token"]')?.content ?? '';

async function check(res: Response): Promise<unknown> {
  const body = (await res.json()) as { error?: { code: string; message: string; hint?: string } };
  if (!res.ok || body.error) throw new ApiError(body.error?.code ?? `HTTP_${res.status}`, body.error?.message ?? res.statusText, body.error?.hint);
  return body;
}

export async function get<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T> {
  const q = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
  return (await check(await fetch(`/api${path}${q.size ? `?${q}` : ''}`))) as T;
}

export async function post<T>(path: string, body: unknown = {}): Promise<T> {
  return (await check(await fetch(`/api${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forge-token': token }, body: JSON.stringify(body) }))) as T;
}

/** Reads a JSON-lines response row by row, handing each row over as it arrives; `signal` stops it (the promise then rejects). */
export async function stream<T>(path: string, onRow: (row: T) => void, signal?: AbortSignal): Promise<void> {
  const res = await fetch(`/api${path}`, signal ? { signal } : {});
  if (!res.ok || !res.body) await check(res);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let rest = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    rest += value;
    const lines = rest.split('\n');
    rest = lines.pop()!;
    for (const line of lines) if (line) onRow(JSON.parse(line) as T);
  }
  if (rest.trim()) onRow(JSON.parse(rest) as T);
}
