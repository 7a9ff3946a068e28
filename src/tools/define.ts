/**
 * A tool: a name (and aliases), a description written for a model, a strict zod input schema
 * (one object at the top level), whether it has side effects, the paths it touches (so the
 * registry can sandbox them and show them to the approver before anything runs), and a handler.
 * Handlers do not report what they changed: the registry observes every write through the view
 * it hands them (see recording-vfs.ts), so no handler can forget one.
 */
import type { z } from 'zod';
import type { ToolContext } from './context';
import type { PathArg } from './sandbox';

export interface ToolDefinition<S extends z.ZodObject = z.ZodObject, O = unknown> {
  /** At most 64 characters from a-zA-Z0-9_- (OpenAI's rule for function names). */
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly description: string;
  /** A strict object: unknown keys rejected. Optional fields also accept null (treated as absent). */
  readonly input: S;
  /** Changes files or session state beyond read tracking; never allowed by default. */
  readonly sideEffects: boolean;
  /**
   * Whether a call that changed files becomes the session's undo entry. Default true; Undo
   * itself says false (undoing an undo would be a redo, which the spec leaves out).
   */
  readonly recordsUndo?: boolean;
  /**
   * A tool with side effects whose changes are only additive (it never overwrites or removes
   * anything) says false. Default: true when it has side effects. MCP's destructiveHint.
   */
  readonly destructive?: boolean;
  /** Repeating a successful call with the same arguments changes nothing more. Default false. MCP's idempotentHint. */
  readonly idempotent?: boolean;
  /** Default: only tools without side effects run in restricted mode. */
  readonly allowedInRestricted?: boolean;
  /**
   * Top-level string fields the handler also takes as UTF-8 bytes (`ctx.utf8Args`): a huge
   * argument read from a file (`forge turn`) is then never decoded into a string.
   */
  readonly utf8Args?: readonly string[];
  /** Every path argument, with what the tool does with it. */
  readonly paths?: (input: z.output<S>) => PathArg[];
  readonly handler: (input: z.output<S>, ctx: ToolContext) => Promise<O>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a heterogeneous list of tools
export type AnyToolDefinition = ToolDefinition<any, any>;

/** Identity with inference: the handler's input type follows from the schema. */
export function defineTool<S extends z.ZodObject, O>(definition: ToolDefinition<S, O>): ToolDefinition<S, O> {
  return definition;
}
