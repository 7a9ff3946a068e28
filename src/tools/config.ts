/**
 * Configuration of the tool layer. Keys are snake_case like the spec's `[tools.edit]` table, so a
 * config file can be written the way the specs describe it. Every field has a default: an empty
 * object parses to the defaults.
 */
import { z } from 'zod';
import { ForgeError } from '../errors';

/** Secrets a model should never read or write (gitignore syntax). */
export const DEFAULT_DENIED_PATHS: readonly string[] = ['.env', '.env.*', '*.pem', '*.key', 'id_rsa*'];

const positiveInt = z.number().int().positive();

const EditConfigSchema = z.strictObject({
  /** Spec 001 §5. */
  max_snippet_bytes: positiveInt.default(262_144),
  max_line_edit_bytes: positiveInt.default(262_144),
  require_file_hash: z.boolean().default(false),
});

const ReadFileConfigSchema = z.strictObject({
  /** Lines returned per call; the output says where the next page starts. */
  max_lines: positiveInt.default(2000),
  /** Bytes of numbered output per call (a page stops before exceeding it). */
  max_bytes: positiveInt.default(100_000),
  /** A longer line is cut and marked, so one minified line cannot fill the page. */
  max_line_chars: positiveInt.default(2000),
});

const SearchConfigSchema = z.strictObject({
  max_matches: positiveInt.default(200),
  max_matches_per_file: positiveInt.default(50),
  /** Matched lines are cut to this length in results. */
  max_line_chars: positiveInt.default(300),
  /** Larger files are skipped (and counted as skipped). */
  max_file_bytes: positiveInt.default(1_048_576),
});

const ListFilesConfigSchema = z.strictObject({
  max_entries: positiveInt.default(1000),
});

export const ToolsConfigSchema = z.strictObject({
  /** Paths no tool may read or write, in gitignore syntax; replaces the defaults when given. */
  denied_paths: z.array(z.string()).default([...DEFAULT_DENIED_PATHS]),
  /** Tool names (canonical) that are not offered and refuse calls. */
  disabled_tools: z.array(z.string()).default([]),
  edit: EditConfigSchema.default(EditConfigSchema.parse({})),
  read_file: ReadFileConfigSchema.default(ReadFileConfigSchema.parse({})),
  search: SearchConfigSchema.default(SearchConfigSchema.parse({})),
  list_files: ListFilesConfigSchema.default(ListFilesConfigSchema.parse({})),
});

export type ToolsConfig = z.output<typeof ToolsConfigSchema>;
export type ToolsConfigInput = z.input<typeof ToolsConfigSchema>;

/** Parses a (partial) configuration, filling defaults. INVALID_ARGUMENT names the bad key. */
export function parseToolsConfig(input: unknown = {}): ToolsConfig {
  const result = ToolsConfigSchema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new ForgeError('INVALID_ARGUMENT', `Invalid tools configuration: ${problems.join('; ')}`, { data: { problems } });
}

export const DEFAULT_TOOLS_CONFIG: ToolsConfig = parseToolsConfig({});
