/**
 * Limits of one repository-tool call. Defaults are generous for file-editing work and small
 * enough that a runaway tool cannot hold a turn or the process: 2 s of wall-clock time (CPU
 * inside the sandbox and the tool's own file reads and writes), 64 MiB of sandbox heap,
 * 1 MiB of returned output (as JSON). Snake_case keys, like the rest of the configuration,
 * so `.forge/config.json` can carry them under `repo_tools`.
 */
import { z } from 'zod';
import { ForgeError } from '../../errors';

const positiveInt = z.number().int().positive();

export const RepoToolLimitsSchema = z.strictObject({
  time_limit_ms: positiveInt.default(2000),
  memory_limit_bytes: positiveInt.min(1 << 20).default(64 << 20),
  output_limit_bytes: positiveInt.default(1 << 20),
});

export type RepoToolLimits = z.output<typeof RepoToolLimitsSchema>;
export type RepoToolLimitsInput = z.input<typeof RepoToolLimitsSchema>;

export function parseRepoToolLimits(input: unknown = {}): RepoToolLimits {
  const result = RepoToolLimitsSchema.safeParse(input ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new ForgeError('INVALID_ARGUMENT', `Invalid repository tool limits: ${problems.join('; ')}`, { data: { problems } });
}

export const DEFAULT_REPO_TOOL_LIMITS: RepoToolLimits = parseRepoToolLimits({});
