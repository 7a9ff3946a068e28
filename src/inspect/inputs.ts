/**
 * The inspector API's inputs, validated with zod before any library call. A revision or a branch
 * name is a name git could resolve (no `..`, no leading `/` or `-`, no control characters), so no
 * parameter can name a file outside the repository's refs and objects; file paths go to the
 * commit view, which refuses anything that is not repo-relative (PATH_INVALID).
 */
import { z } from 'zod';
import { ForgeError } from '../errors';

const REVISION = /^(?![-/])(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._/@+-]{1,240}(?:[~^][0-9]{0,4}){0,64}$/;

export const RevisionSchema = z.string().regex(REVISION, 'a commit oid, a branch or a ref, optionally with ~N or ^N');
export const BranchSchema = z.string().regex(/^(?![-/])(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._/@+-]{1,240}$/, 'a branch name');
export const SessionIdSchema = z.string().min(1).max(200);

export const FileQuerySchema = z.strictObject({ path: z.string().min(1).max(4096) });
export const CompareQuerySchema = z.strictObject({ from: RevisionSchema, to: RevisionSchema });
export const MergePreviewQuerySchema = z.strictObject({ into: BranchSchema.optional() });
export const SessionDiffQuerySchema = MergePreviewQuerySchema;
export const SearchQuerySchema = z
  .strictObject({ grep: z.string().max(1000).optional(), author: z.string().max(1000).optional(), since: z.string().max(100).optional(), ignoreCase: z.enum(['0', '1']).optional() })
  .refine((q) => Boolean(q.grep || q.author || q.since), 'give grep, author or since');

/** A full commit oid, as the page shows heads. */
export const OidSchema = z.string().regex(/^[0-9a-f]{40}$/, 'a full 40-character commit oid');

// The heads the page showed when the person confirmed: the action is refused if either moved.
export const MergeBodySchema = z.strictObject({ into: BranchSchema.optional(), noFf: z.boolean().optional(), head: OidSchema, targetHead: OidSchema });
export const RebaseBodySchema = z.strictObject({ onto: BranchSchema.optional(), head: OidSchema, ontoHead: OidSchema.optional() });
export const UndoBodySchema = z.strictObject({ head: OidSchema });
export const DiscardBodySchema = z.strictObject({ head: OidSchema, pending: z.array(z.string().max(4096)).max(100_000).optional() });
export const ResumeBodySchema = z.strictObject({ from: RevisionSchema, id: SessionIdSchema.optional() });

/** Parses or throws the CLI's INVALID_ARGUMENT, naming each problem so the caller can fix its input. */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.length ? i.path.join('.') : what}: ${i.message}`);
  throw new ForgeError('INVALID_ARGUMENT', `Invalid ${what}: ${problems.join('; ')}.`, { data: { problems } });
}
