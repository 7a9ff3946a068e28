/**
 * The `files` shape shared by makeRepo (on disk) and makeMemRepo (memfs), turned into a
 * one-commit fixture definition so both go through the same validation and, for the same input,
 * produce the same commit oid.
 */
import type { FixtureDefinition, FixtureFileMode } from '../../fixtures-repos/types';
import { TEST_AUTHOR, TEST_DATE_ISO } from './test-identity';

export type FileMode = FixtureFileMode;

/** Text (UTF-8), bytes, or either with a mode ('120000': the content is the link target). */
export type FileInput = string | Uint8Array | { content: string | Uint8Array; mode?: FileMode };

export interface MakeRepoOptions {
  /** path -> content; nested paths create directories. May be empty (an empty tree). */
  files: Record<string, FileInput>;
  /** Default false. */
  bare?: boolean;
  /** Default 'main'. */
  branch?: string;
  /** Default 'Initial commit'. */
  message?: string;
}

export interface RepoHandle {
  /** The working tree, or for a bare repository the repository itself. */
  dir: string;
  gitdir: string;
  /** The commit oid the branch points to. */
  head: string;
}

/** A one-commit definition with the test identity and date. */
export function filesToDefinition(opts: MakeRepoOptions): FixtureDefinition {
  return {
    name: 'makeRepo',
    description: 'built by a test',
    branch: opts.branch ?? 'main',
    author: { ...TEST_AUTHOR },
    commits: [
      {
        date: TEST_DATE_ISO,
        message: opts.message ?? 'Initial commit',
        files: Object.entries(opts.files).map(([path, input]) => {
          const { content, mode } = typeof input === 'string' || input instanceof Uint8Array ? { content: input } : input;
          const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
          return { path, mode: mode ?? '100644', base64: bytes.toString('base64') };
        }),
      },
    ],
  };
}
