/**
 * The approval policy decides every call: allow, deny, or ask a human through a callback.
 * Side-effecting tools are never allowed by default; a headless caller passes the policy it
 * wants (allowAll in a sandboxed CI run, allowList for a reviewed set of tools, ...).
 */
import type { SessionMode } from '../session/state';

export type ApprovalDecision = 'allow' | 'deny' | 'ask';

/** What the policy (and a human being asked) sees of a call. */
export interface ApprovalRequest {
  /** Canonical tool name. */
  tool: string;
  aliases: readonly string[];
  sideEffects: boolean;
  /** The validated arguments. */
  args: unknown;
  /** Canonical paths the call reads or writes, after the sandbox accepted them. */
  paths: string[];
  mode: SessionMode;
}

/** Answers an `ask`: true approves. */
export type AskCallback = (request: ApprovalRequest) => boolean | Promise<boolean>;

export interface ApprovalPolicy {
  decide(request: ApprovalRequest): ApprovalDecision | Promise<ApprovalDecision>;
  /** Without it, `ask` means deny: there is no one to ask. */
  ask?: AskCallback;
}

export type ApprovalOutcome = { allowed: true } | { allowed: false; reason: 'denied' | 'declined' | 'no_approver' };

export const allowAll: ApprovalPolicy = { decide: () => 'allow' };
export const denyAll: ApprovalPolicy = { decide: () => 'deny' };

/** Read-only tools run; anything with side effects is asked (denied without a callback). The default. */
export function allowReadOnly(ask?: AskCallback): ApprovalPolicy {
  return { decide: (request) => (request.sideEffects ? 'ask' : 'allow'), ...(ask ? { ask } : {}) };
}

/**
 * Read-only tools plus the named ones (canonical names or aliases) run; any other
 * side-effecting tool is asked. Naming the write tools a run may use is the usual headless setup.
 */
export function allowList(names: readonly string[], ask?: AskCallback): ApprovalPolicy {
  const allowed = new Set(names);
  const listed = (request: ApprovalRequest) => allowed.has(request.tool) || request.aliases.some((a) => allowed.has(a));
  return {
    decide: (request) => (!request.sideEffects || listed(request) ? 'allow' : 'ask'),
    ...(ask ? { ask } : {}),
  };
}

export async function resolveApproval(policy: ApprovalPolicy, request: ApprovalRequest): Promise<ApprovalOutcome> {
  const decision = await policy.decide(request);
  if (decision === 'allow') return { allowed: true };
  if (decision === 'deny') return { allowed: false, reason: 'denied' };
  if (!policy.ask) return { allowed: false, reason: 'no_approver' };
  return (await policy.ask(request)) ? { allowed: true } : { allowed: false, reason: 'declined' };
}
