/**
 * The inspector's JSON API: a table of routes, each validating its inputs with zod and calling
 * one service of this folder (which calls the library). No HTTP here: the Node server
 * (`node/server.ts`) checks Host and token, parses the request and writes what this returns.
 * GET routes read; POST routes change refs and need the token (checked by the server).
 */
import { ForgeError, toForgeError, type ErrorKind } from '../errors';
import { SESSION_REF_PREFIX, validateSessionId } from '../session';
import { discard, merge, mergePreview, rebase, resume, undoLastEdit, type ActionContext } from './actions';
import { compareView, fileView, treeView, turnView } from './history';
import { CompareQuerySchema, DiscardBodySchema, FileQuerySchema, MergeBodySchema, MergePreviewQuerySchema, parseInput, RebaseBodySchema, ResumeBodySchema, RevisionSchema, SearchQuerySchema, SessionDiffQuerySchema, UndoBodySchema } from './inputs';
import { blameView, searchView, sessionDiff } from './review';
import { sessionRows } from './session-rows';
import { sessionTimeline, timelineLines } from './timeline';

export type ApiResponse = { kind: 'json'; status: number; body: unknown } | { kind: 'ndjson'; rows: AsyncIterable<unknown> };

export interface ApiRequest {
  method: string;
  /** The path below /api, e.g. "/sessions/demo/timeline". */
  path: string;
  query: Record<string, string>;
  body: unknown;
}

interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  /**
   * The result is written as JSON lines, one per item, as they come. `run` may first resolve
   * (opening what the lines come from): a refusal then is a plain error response with its status.
   */
  ndjson?: true;
  run(ctx: ActionContext, params: string[], request: ApiRequest): Promise<unknown> | AsyncIterable<unknown>;
}

const ok = (body: unknown): ApiResponse => ({ kind: 'json', status: 200, body });
const session = (raw: string) => validateSessionId(decodeURIComponent(raw));
const revision = (raw: string) => parseInput(RevisionSchema, decodeURIComponent(raw), 'revision');

const ROUTES: Route[] = [
  { method: 'GET', pattern: /^\/sessions$/, ndjson: true, run: (ctx) => sessionRows(ctx.repo) },
  { method: 'GET', pattern: /^\/sessions\/([^/]+)\/timeline$/, run: (ctx, [id]) => sessionTimeline(ctx.repo, session(id!)) },
  // The same timeline streamed (what the page reads): a header line, then a line per turn as it is computed.
  { method: 'GET', pattern: /^\/sessions\/([^/]+)\/turns$/, ndjson: true, run: (ctx, [id]) => timelineLines(ctx.repo, session(id!)) },
  {
    method: 'GET',
    pattern: /^\/sessions\/([^/]+)\/merge-preview$/,
    run: (ctx, [id], r) => mergePreview(ctx, session(id!), parseInput(MergePreviewQuerySchema, r.query, 'query').into),
  },
  // The session's changes against its merge target (`into`, default the session's target).
  { method: 'GET', pattern: /^\/sessions\/([^/]+)\/diff$/, run: (ctx, [id], r) => sessionDiff(ctx.repo, session(id!), parseInput(SessionDiffQuerySchema, r.query, 'query').into) },
  { method: 'GET', pattern: /^\/commits\/([^/]+)\/blame$/, run: (ctx, [rev], r) => blameView(ctx.repo, revision(rev!), parseInput(FileQuerySchema, r.query, 'query').path) },
  // `forge log --grep/--author/--since` across every session, a line per matching turn.
  {
    method: 'GET',
    pattern: /^\/search$/,
    ndjson: true,
    run: async (ctx, _, r) => {
      const q = parseInput(SearchQuerySchema, r.query, 'query');
      return searchView(ctx.repo, { ...(q.grep ? { grep: q.grep } : {}), ...(q.author ? { author: q.author } : {}), ...(q.since ? { since: q.since } : {}), ignoreCase: q.ignoreCase === '1' });
    },
  },
  { method: 'GET', pattern: /^\/commits\/([^/]+)\/turn$/, run: (ctx, [rev]) => turnView(ctx.repo, revision(rev!)) },
  { method: 'GET', pattern: /^\/commits\/([^/]+)\/tree$/, run: (ctx, [rev]) => treeView(ctx.repo, revision(rev!)) },
  { method: 'GET', pattern: /^\/commits\/([^/]+)\/file$/, run: (ctx, [rev], r) => fileView(ctx.repo, revision(rev!), parseInput(FileQuerySchema, r.query, 'query').path) },
  {
    method: 'GET',
    pattern: /^\/compare$/,
    run: (ctx, _, r) => {
      const q = parseInput(CompareQuerySchema, r.query, 'query');
      return compareView(ctx.repo, q.from, q.to);
    },
  },
  {
    method: 'GET',
    pattern: /^\/branches$/,
    run: async (ctx) => {
      // Each branch with its head: a merge carries the target head the page showed.
      const refs = (await ctx.repo.refs.list('refs/heads/')).filter((r) => !r.ref.startsWith(SESSION_REF_PREFIX));
      return { branches: refs.map((r) => r.ref.slice('refs/heads/'.length)), heads: Object.fromEntries(refs.map((r) => [r.ref.slice('refs/heads/'.length), r.oid])) };
    },
  },
  {
    method: 'POST',
    pattern: /^\/sessions\/([^/]+)\/merge$/,
    run: (ctx, [id], r) => {
      const body = parseInput(MergeBodySchema, r.body, 'body');
      return merge(ctx, session(id!), { ...(body.into !== undefined ? { into: body.into } : {}), ...(body.noFf !== undefined ? { noFf: body.noFf } : {}), head: body.head, targetHead: body.targetHead });
    },
  },
  {
    method: 'POST',
    pattern: /^\/sessions\/([^/]+)\/rebase$/,
    run: (ctx, [id], r) => {
      const body = parseInput(RebaseBodySchema, r.body, 'body');
      return rebase(ctx, session(id!), { ...(body.onto !== undefined ? { onto: body.onto } : {}), head: body.head, ...(body.ontoHead !== undefined ? { ontoHead: body.ontoHead } : {}) });
    },
  },
  { method: 'POST', pattern: /^\/sessions\/([^/]+)\/undo$/, run: (ctx, [id], r) => undoLastEdit(ctx, session(id!), parseInput(UndoBodySchema, r.body, 'body')) },
  {
    method: 'POST',
    pattern: /^\/sessions\/([^/]+)\/discard$/,
    run: (ctx, [id], r) => {
      const body = parseInput(DiscardBodySchema, r.body, 'body');
      return discard(ctx, session(id!), { head: body.head, ...(body.pending !== undefined ? { pending: body.pending } : {}) });
    },
  },
  {
    method: 'POST',
    pattern: /^\/resume$/,
    run: (ctx, _, r) => {
      const body = parseInput(ResumeBodySchema, r.body, 'body');
      return resume(ctx, body.from, body.id === undefined ? undefined : validateSessionId(body.id));
    },
  },
];

/** The HTTP status of a refusal: by the error's kind, "not found" codes as 404. */
export function statusOf(error: ForgeError): number {
  if (error.code === 'INSPECT_HOST_REFUSED' || error.code === 'INSPECT_TOKEN_INVALID' || error.code === 'INSPECT_ACCESS_DENIED') return 403;
  if (/_NOT_FOUND$/.test(error.code)) return 404;
  const byKind: Record<ErrorKind, number> = { user: 400, conflict: 409, unsupported: 501, remote: 502, corrupt: 422, internal: 500 };
  return byKind[error.kind];
}

export function errorResponse(error: unknown): ApiResponse {
  const forgeError = toForgeError(error);
  return { kind: 'json', status: statusOf(forgeError), body: { error: forgeError.toJSON() } };
}

/** Whether a method and path name a route that changes state (the server demands the token for these). */
export function isStateChanging(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}

export async function handleApi(ctx: ActionContext, request: ApiRequest): Promise<ApiResponse> {
  try {
    for (const route of ROUTES) {
      const match = route.pattern.exec(request.path);
      if (!match || route.method !== request.method) continue;
      const result = route.run(ctx, match.slice(1), request);
      return route.ndjson ? { kind: 'ndjson', rows: (await result) as AsyncIterable<unknown> } : ok(await result);
    }
    throw new ForgeError('INSPECT_ROUTE_NOT_FOUND', `No API route ${request.method} /api${request.path}.`, { data: { method: request.method, path: request.path } });
  } catch (error) {
    return errorResponse(error);
  }
}
