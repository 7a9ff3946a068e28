/**
 * The repository's own settings for repository tools: the `repo_tools` object of
 * `.forge/config.json` in the view, when that file exists ({ time_limit_ms,
 * memory_limit_bytes, output_limit_bytes }). Read from the view, like the approvals, so the
 * limits a tool runs under are versioned with it. Library callers pass limits as options instead.
 */
import { ForgeError } from '../../errors';
import type { Vfs } from '../../vfs/types';

export const CONFIG_PATH = '.forge/config.json';

export async function repoToolLimitsFromConfig(vfs: Vfs): Promise<unknown> {
  const stat = await vfs.stat(CONFIG_PATH);
  if (stat?.type !== 'file') return undefined;
  let config: unknown;
  try {
    config = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(await vfs.readFile(CONFIG_PATH)));
  } catch {
    throw new ForgeError('INVALID_ARGUMENT', `${CONFIG_PATH} is not UTF-8 JSON.`, { data: { path: CONFIG_PATH } });
  }
  return config !== null && typeof config === 'object' && 'repo_tools' in config ? (config as { repo_tools: unknown }).repo_tools : undefined;
}
