/**
 * Read-only resources of the session: its state (the conversation record, read hashes, undo
 * entry, mode, including the calls of the turn in progress) as JSON, and the pending changes
 * as one unified diff (empty when nothing is pending).
 */
import { ErrorCode, McpError, type ReadResourceResult, type Resource } from '@modelcontextprotocol/sdk/types.js';
import type { Session } from '../session';
import { pendingPatches } from './turns';

/** JSON-RPC code for an unknown resource, as the MCP specification assigns it. */
export const RESOURCE_NOT_FOUND = -32002;

export function stateUri(session: Session): string {
  return `forge://session/${session.id}/state`;
}

export function pendingDiffUri(session: Session): string {
  return `forge://session/${session.id}/pending.diff`;
}

export function listResources(session: Session): Resource[] {
  return [
    {
      uri: stateUri(session),
      name: 'session-state',
      title: `Session ${session.id}: state`,
      description: `The state of session ${session.id} (committed with every turn as .forge/sessions/${session.id}.json), including the tool calls of the turn in progress.`,
      mimeType: 'application/json',
    },
    {
      uri: pendingDiffUri(session),
      name: 'pending-diff',
      title: `Session ${session.id}: pending diff`,
      description: `The changes not yet committed on ${session.branch}, as a unified diff against its head (empty when nothing is pending).`,
      mimeType: 'text/x-diff',
    },
  ];
}

export async function readResource(session: Session, uri: string): Promise<ReadResourceResult> {
  if (uri === stateUri(session)) {
    return { contents: [{ uri, mimeType: 'application/json', text: `${JSON.stringify(session.state, null, 2)}\n` }] };
  }
  if (uri === pendingDiffUri(session)) {
    const patches = await pendingPatches(session);
    return { contents: [{ uri, mimeType: 'text/x-diff', text: patches.map((p) => p.patch).join('') }] };
  }
  throw resourceNotFound(session, uri);
}

/**
 * McpError puts "MCP error <code>: " before the message it is given, and the SDK's Protocol sends
 * error.message as it is: the message is set back to the bare sentence so the prefix is not
 * doubled on the wire (a client adds its own).
 */
function resourceNotFound(session: Session, uri: string): McpError {
  const error = new McpError(RESOURCE_NOT_FOUND as ErrorCode, '', { uri });
  error.message = `Resource not found: ${uri}. This server offers ${stateUri(session)} and ${pendingDiffUri(session)}.`;
  return error;
}
