/**
 * Repository configuration through isomorphic-git's config parser (loaded lazily: the CLI's
 * hot path reads at most a few keys), and the format check: repositories whose format we
 * cannot write correctly are refused up front instead of being corrupted.
 */
import { ForgeError } from '../errors';
import type { GitFs } from './fs';

export class RepoConfig {
  private readonly cache = new Map<string, Promise<unknown>>();

  constructor(
    private readonly fs: GitFs,
    private readonly gitdir: string,
  ) {}

  get(path: string): Promise<unknown> {
    const key = path.toLowerCase();
    let value = this.cache.get(key);
    if (value === undefined) {
      value = import('isomorphic-git').then((git) => git.getConfig({ fs: this.fs as never, gitdir: this.gitdir, path }));
      this.cache.set(key, value);
    }
    return value;
  }

  async getString(path: string): Promise<string | undefined> {
    const value = await this.get(path);
    return value === undefined || value === null ? undefined : String(value);
  }

  /**
   * Lower-cased key names of a section without subsection. isomorphic-git has no call that
   * lists a section's keys, so this reads the file text (only the format check needs it).
   */
  async sectionKeys(section: string): Promise<string[]> {
    const text = await this.fs.promises.readFile(`${this.gitdir}/config`, 'utf8').catch(() => '');
    const names: string[] = [];
    let inside = false;
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      if (line.startsWith('[')) {
        inside = line.slice(1, line.indexOf(']')).trim().toLowerCase() === section.toLowerCase();
      } else if (inside && line && !line.startsWith('#') && !line.startsWith(';')) {
        names.push(line.split('=')[0]!.trim().toLowerCase());
      }
    }
    return names;
  }

  async getBool(path: string): Promise<boolean | undefined> {
    const value = await this.get(path);
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'boolean') return value;
    const text = String(value).toLowerCase();
    if (['true', 'yes', 'on', '1', 'always'].includes(text)) return true;
    if (['false', 'no', 'off', '0', ''].includes(text)) return false;
    return undefined;
  }
}

/** Extensions that do not change how objects and refs are written (see git's repository-version docs). */
const HARMLESS_EXTENSIONS = new Set(['noop', 'noop-v1', 'preciousobjects', 'partialclone', 'worktreeconfig']);

export async function assertSupportedFormat(config: RepoConfig, gitdir: string): Promise<void> {
  const objectFormat = (await config.getString('extensions.objectFormat'))?.toLowerCase();
  if (objectFormat !== undefined && objectFormat !== 'sha1') {
    throw new ForgeError('UNSUPPORTED_REPOSITORY_FORMAT', `Repository ${gitdir} uses extensions.objectFormat=${objectFormat}; the engine writes SHA-1 objects only.`, {
      data: { gitdir, extension: 'objectFormat', value: objectFormat },
    });
  }
  const refStorage = (await config.getString('extensions.refStorage'))?.toLowerCase();
  if (refStorage !== undefined && refStorage !== 'files') {
    throw new ForgeError('UNSUPPORTED_REPOSITORY_FORMAT', `Repository ${gitdir} uses extensions.refStorage=${refStorage}; the engine updates files-backend refs only.`, {
      data: { gitdir, extension: 'refStorage', value: refStorage },
    });
  }
  const version = Number((await config.getString('core.repositoryFormatVersion')) ?? '0');
  if (version > 1) {
    throw new ForgeError('UNSUPPORTED_REPOSITORY_FORMAT', `Repository ${gitdir} has core.repositoryFormatVersion=${version}; the engine knows versions 0 and 1.`, { data: { gitdir } });
  }
  if (version === 1) {
    for (const name of await config.sectionKeys('extensions')) {
      if (!HARMLESS_EXTENSIONS.has(name) && name !== 'objectformat' && name !== 'refstorage') {
        throw new ForgeError('UNSUPPORTED_REPOSITORY_FORMAT', `Repository ${gitdir} uses extensions.${name}, which the engine does not know; refusing to write to it.`, {
          data: { gitdir, extension: name },
        });
      }
    }
  }
}
