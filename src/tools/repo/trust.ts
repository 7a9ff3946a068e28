/**
 * The local trust list of repository tools: which tool sources a person approved ON THIS
 * MACHINE, keyed by name and content hash (as direnv's and mise's allow lists are). The
 * committed `.forge/approved_tools.json` is the audit record and travels with the repository
 * (fetch, pull, merge, a hand-written commit); this file does not: it lives in the git directory
 * (`<common dir>/forge/trusted-tools.json`), is never committed, and only `forge tools approve`
 * (`approveRepoTool`) writes it. A tool runs only when both agree on its current source.
 *
 * In a browser the same file is kept in the repository's git directory on its fs (lightning-fs):
 * the trust store is per browser profile and origin, as the repository itself is.
 */
import { z } from 'zod';
import { ForgeError } from '../../errors';
import { createExclusive, errnoCode, joinPath, mkdirp, type Repository } from '../../git';

/** Relative to the repository's common git directory. */
export const TRUST_FILE = 'forge/trusted-tools.json';

const TrustEntrySchema = z.strictObject({
  tool: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The git blob of the trusted source: what `forge tools diff` compares a later version with. */
  blob: z.string().regex(/^[0-9a-f]{40}$/),
  /** "Name <email>" of the person who approved here. */
  trustedBy: z.string(),
  trustedAt: z.string(),
});

const TrustFileSchema = z.strictObject({ version: z.literal(1), trusted: z.array(TrustEntrySchema) });

export type TrustEntry = z.output<typeof TrustEntrySchema>;

/** What the tool layer asks: did a person here approve this exact source of this tool? */
export interface ToolTrust {
  /** The entry for exactly this tool and content, or undefined. */
  trusted(tool: string, sha256: string): Promise<TrustEntry | undefined>;
  /** The newest entry for a tool, whatever its content (to diff a new version against). */
  latest(tool: string): Promise<TrustEntry | undefined>;
}

/** The trust list in a repository's git directory (node's fs, memfs or lightning-fs alike). */
export class LocalToolTrust implements ToolTrust {
  private readonly path: string;

  constructor(private readonly repo: Pick<Repository, 'fs' | 'commonDir'>) {
    this.path = joinPath(repo.commonDir, TRUST_FILE);
  }

  /** Read on every question: a person may approve in another terminal while a server runs. */
  async entries(): Promise<TrustEntry[]> {
    let text: string;
    try {
      text = await this.repo.fs.promises.readFile(this.path, 'utf8');
    } catch (error) {
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return [];
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw this.damaged('it is not JSON');
    }
    const parsed = TrustFileSchema.safeParse(json);
    if (!parsed.success) throw this.damaged(parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
    return parsed.data.trusted;
  }

  async trusted(tool: string, sha256: string): Promise<TrustEntry | undefined> {
    return (await this.entries()).find((e) => e.tool === tool && e.sha256 === sha256);
  }

  async latest(tool: string): Promise<TrustEntry | undefined> {
    return (await this.entries()).filter((e) => e.tool === tool).at(-1);
  }

  /** Records an approval made here (replacing an older entry for the same tool and content). */
  async add(entry: TrustEntry): Promise<void> {
    const { fs } = this.repo;
    const lock = `${this.path}.lock`;
    await mkdirp(fs, joinPath(this.repo.commonDir, 'forge'));
    try {
      await createExclusive(fs, lock, '');
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw error;
      throw new ForgeError('REF_LOCKED', `The trust list is locked: ${lock} exists. Another forge tools approve is running; if none is, remove the stale lock file.`, {
        data: { lock },
        hint: 'Retry shortly.',
      });
    }
    try {
      const kept = (await this.entries()).filter((e) => !(e.tool === entry.tool && e.sha256 === entry.sha256));
      const bytes = `${JSON.stringify({ version: 1, trusted: [...kept, entry] }, null, 2)}\n`;
      // Written aside and renamed over: a reader never sees half a file.
      const temp = `${this.path}.tmp`;
      await fs.promises.writeFile(temp, bytes);
      await fs.promises.rename(temp, this.path);
    } finally {
      await fs.promises.unlink(lock).catch(() => undefined);
    }
  }

  private damaged(problem: string): ForgeError {
    return new ForgeError('INVALID_ARGUMENT', `The local trust list ${this.path} is damaged: ${problem}.`, {
      data: { path: this.path },
      hint: `Remove ${this.path} and approve the repository tools you use again with forge tools approve <name>.`,
    });
  }
}
