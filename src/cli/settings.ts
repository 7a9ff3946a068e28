/**
 * Per-repository and per-user defaults (spec 002, "Configuration"): `.forge/config.json` in the
 * repository's working tree and `$XDG_CONFIG_HOME/forge/config.json` (else
 * ~/.config/forge/config.json), the same zod schema for both. Precedence, highest first:
 * command-line flags > environment (FORGE_PROVIDER, FORGE_MODEL, FORGE_APPROVE, FORGE_MODE) >
 * repository config > user config > built-in defaults. `resolveSettings` is pure; the files and
 * the environment are read by `loadSettings`.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ForgeError } from '../errors';
import { RepoToolLimitsSchema } from '../tools/repo/limits';

export const SettingsSchema = z.strictObject({
  /** scripted, openai or anthropic (forge run). */
  provider: z.enum(['scripted', 'openai', 'anthropic']).optional(),
  model: z.string().min(1).optional(),
  /** The approval policy of forge run and forge mcp: all, none, ask or TOOL,TOOL. */
  approve: z.string().min(1).optional(),
  /** The mode of new sessions. */
  mode: z.enum(['restricted', 'unrestricted']).optional(),
  /** Paths no tool may read or write (gitignore syntax); replaces the built-in list. */
  denied_paths: z.array(z.string()).optional(),
  /**
   * Repository-tool limits; read from the view the tool runs in (tools/repo/config.ts), so only
   * checked here: a file that sets them must still load.
   */
  repo_tools: RepoToolLimitsSchema.optional(),
  /** Secret redaction of committed session states: false turns it off; patterns add regular expressions. */
  /**
   * forge mount: show the working tree's ignored directories (installed node_modules/) read-only
   * beneath the session's scratch layer (default true in a non-bare repository).
   */
  mount_worktree_ignored: z.boolean().optional(),
  redact: z.union([z.boolean(), z.strictObject({ enabled: z.boolean().optional(), patterns: z.array(z.string()).optional() })]).optional(),
});

export type Settings = z.output<typeof SettingsSchema>;
export type SettingName = keyof Settings;

/** One layer of settings and where it came from (named in error messages). */
export interface SettingsLayer {
  source: string;
  values: Settings;
}

const ENVIRONMENT: Readonly<Record<string, SettingName>> = { FORGE_PROVIDER: 'provider', FORGE_MODEL: 'model', FORGE_APPROVE: 'approve', FORGE_MODE: 'mode' };

/** Parses one layer; a value the schema refuses is the user's error, naming the file and key. */
export function parseSettings(raw: unknown, source: string): SettingsLayer {
  const parsed = SettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`);
    throw new ForgeError('INVALID_ARGUMENT', `${source}: ${problems.join('; ')}.`, { data: { source, problems }, hint: `Keys: ${Object.keys(SettingsSchema.shape).join(', ')}.` });
  }
  return { source, values: parsed.data };
}

/** The environment's layer: FORGE_* variables that are set and not empty. */
export function environmentSettings(env: Readonly<Record<string, string | undefined>>): SettingsLayer {
  const raw: Record<string, string> = {};
  for (const [variable, name] of Object.entries(ENVIRONMENT)) {
    const value = env[variable];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  return parseSettings(raw, 'the environment (FORGE_*)');
}

/** Each setting from the highest layer that has it; layers are given highest first. */
export function resolveSettings(layers: readonly SettingsLayer[]): Settings {
  const out: Record<string, unknown> = {};
  for (const layer of [...layers].reverse()) {
    for (const [key, value] of Object.entries(layer.values)) if (value !== undefined) out[key] = value;
  }
  return out as Settings;
}

function readLayer(file: string, source: string): SettingsLayer | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined; // no such file: the layer is empty
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ForgeError('INVALID_ARGUMENT', `${source} is not valid JSON: ${(error as Error).message}`);
  }
  return parseSettings(raw, source);
}

export function userSettingsFile(env: Readonly<Record<string, string | undefined>> = process.env, home: string = homedir()): string {
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'forge', 'config.json');
}

/**
 * Settings below the flags: environment > `<workdir>/.forge/config.json` > user config.
 * `flags` (the command line's values, undefined where not given) go on top.
 */
export function loadSettings(workdir: string | null, flags: Settings, env: Readonly<Record<string, string | undefined>> = process.env): Settings {
  const layers: SettingsLayer[] = [{ source: 'the command line', values: flags }, environmentSettings(env)];
  if (workdir !== null) {
    const repoLayer = readLayer(join(workdir, '.forge', 'config.json'), '.forge/config.json');
    if (repoLayer) layers.push(repoLayer);
  }
  const userFile = userSettingsFile(env);
  const userLayer = readLayer(userFile, userFile);
  if (userLayer) layers.push(userLayer);
  return resolveSettings(layers);
}
