/**
 * Session modes. `restricted` offers read-only tools only; a write tool answers with the
 * REQ-PATCH-009 wording so the model knows to call request_mode_upgrade.
 */
import type { SessionMode } from '../session/state';
import type { AnyToolDefinition } from './define';

export type { SessionMode };

/** REQ-PATCH-009, byte for byte for Patch, and the same sentence for every other write tool. */
export function disabledInModeMessage(toolName: string): string {
  return `${toolName} tool is disabled in Restricted mode. Use request_mode_upgrade to request write access.`;
}

export function isAvailableInMode(tool: AnyToolDefinition, mode: SessionMode): boolean {
  return mode === 'unrestricted' || (tool.allowedInRestricted ?? !tool.sideEffects);
}
