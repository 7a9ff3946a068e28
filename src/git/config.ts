/**
 * Repository configuration (`<commondir>/config`), read once per handle with our own parser
 * (config-parser.ts): importing isomorphic-git to read a handful of keys cost ~120 ms of every
 * cold open on Node. And the format check: repositories whose format we cannot write correctly
 * are refused up front instead of being corrupted.
 */
import { ForgeError } from '../errors';
import { errnoCode, joinPath, type GitFs } from './fs';
import { parseGitConfig, type ConfigValue } from './config-parser';

export class RepoConfig {
  private parsed: Promise<Map<string, ConfigValue[]>> | null = null;

  constructor(
    private readonly fs: GitFs,
    private readonly gitdir: string,
  ) {}

  /** All values of a key (`section.name` or `section.subsection.name`), last one last. */
  async getAll(path: string): Promise<ConfigValue[]> {
    return (await this.load()).get(normalizeKey(path)) ?? [];
  }

  async getString(path: string): Promise<string | undefined> {
    const values = await this.getAll(path);
    const last = values[values.length - 1];
    return last === undefined ? undefined : last === true ? 'true' : last;
  }

  async getBool(path: string): Promise<boolean | undefined> {
    const values = await this.getAll(path);
    const last = values[values.length - 1];
    if (last === undefined) return undefined;
    if (last === true) return true;
    const text = last.toLowerCase();
    if (['true', 'yes', 'on', '1', 'always'].includes(text)) return true;
    if (['false', 'no', 'off', '0', ''].includes(text)) return false;
    return undefined;
  }

  /** A size as git's --type=int reads it: digits with an optional k, m or g suffix (binary units); undefined when unset or not a size. */
  async getSize(path: string): Promise<number | undefined> {
    const value = await this.getString(path);
    const match = value === undefined ? null : /^\s*(\d+)\s*([kmg]?)\s*$/i.exec(value);
    if (match === null) return undefined;
    return Number(match[1]) * 1024 ** ' kmg'.indexOf(match[2]!.toLowerCase() || ' ');
  }

  /** Lower-cased variable names of a section without subsection (e.g. every `extensions.*`). */
  async sectionKeys(section: string): Promise<string[]> {
    const prefix = `${section.toLowerCase()}.`;
    return [...(await this.load()).keys()].filter((key) => key.startsWith(prefix) && !key.slice(prefix.length).includes('.')).map((key) => key.slice(prefix.length));
  }

  private load(): Promise<Map<string, ConfigValue[]>> {
    this.parsed ??= this.fs.promises.readFile(joinPath(this.gitdir, 'config'), 'utf8').then(
      (text) => parseGitConfig(text),
      (error: unknown) => {
        if (errnoCode(error) === 'ENOENT') return new Map<string, ConfigValue[]>();
        throw error;
      },
    );
    return this.parsed;
  }
}

/** Section and variable names are case-insensitive; a subsection is not. */
function normalizeKey(path: string): string {
  const first = path.indexOf('.');
  const last = path.lastIndexOf('.');
  if (first === last) return path.toLowerCase();
  return `${path.slice(0, first).toLowerCase()}${path.slice(first, last)}.${path.slice(last + 1).toLowerCase()}`;
}

/** Extensions that do not change how objects and refs are written (see git's repository-version docs). */
const HARMLESS_EXTENSIONS = new Set(['noop', 'noop-v1', 'preciousobjects', 'partialclone', 'worktreeconfig', 'objectformat', 'refstorage']);

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
      if (!HARMLESS_EXTENSIONS.has(name)) {
        throw new ForgeError('UNSUPPORTED_REPOSITORY_FORMAT', `Repository ${gitdir} uses extensions.${name}, which the engine does not know; refusing to write to it.`, {
          data: { gitdir, extension: name },
        });
      }
    }
  }
}
