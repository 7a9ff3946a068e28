/**
 * What a tool handler gets: the view it reads and writes, the tool-relevant part of the session
 * state (mutated in place, so the session commits it with the turn), the configuration, the
 * content hash function and the approval policy.
 */
import type { Bytes } from '../git/byte-runs';
import type { SessionState } from '../session/state';
import type { WritableVfs } from '../vfs/types';
import { allowReadOnly, type ApprovalPolicy } from './approval';
import { DEFAULT_TOOLS_CONFIG, parseToolsConfig, type ToolsConfig } from './config';
import { sha256Hex } from './hash';

/** The part of SessionState tools read and change. A SessionState object can be passed as is. */
export type ToolState = Pick<SessionState, 'mode' | 'readHashes' | 'clipboards' | 'activeFiles' | 'undo'>;

export interface ToolContext {
  vfs: WritableVfs;
  state: ToolState;
  config: ToolsConfig;
  /** SHA-256 hex of file bytes: the hash read tracking and file_hash use. */
  hashContent(bytes: Bytes): Promise<string>;
  /** The same hash of a blob by its oid, when it is known without reading it (null: read and hash it). */
  hashOfBlob?(oid: string): Promise<string | null>;
  /** Decides side-effecting calls. Default: allowReadOnly() without a callback. */
  approval: ApprovalPolicy;
  /**
   * For a tool that declares `utf8Args`: the UTF-8 bytes of those fields when the call passed
   * them as Utf8Text (the input then holds a preview); absent otherwise.
   */
  utf8Args?: ReadonlyMap<string, Uint8Array>;
}

export interface ToolContextOptions {
  vfs: WritableVfs;
  state?: ToolState;
  /** A ToolsConfig, or a partial config object to parse with defaults. */
  config?: unknown;
  hashContent?: (bytes: Bytes) => Promise<string>;
  hashOfBlob?: (oid: string) => Promise<string | null>;
  approval?: ApprovalPolicy;
}

export function newToolState(mode: ToolState['mode'] = 'restricted'): ToolState {
  return { mode, readHashes: {}, clipboards: {}, activeFiles: [], undo: null };
}

export function createToolContext(options: ToolContextOptions): ToolContext {
  return {
    vfs: options.vfs,
    state: options.state ?? newToolState(),
    config: options.config === undefined ? DEFAULT_TOOLS_CONFIG : parseToolsConfig(options.config),
    hashContent: options.hashContent ?? sha256Hex,
    ...(options.hashOfBlob ? { hashOfBlob: options.hashOfBlob } : {}),
    approval: options.approval ?? allowReadOnly(),
  };
}
