/** --approve all | none | ask | TOOL,TOOL  ->  an approval policy; anything else is refused. */
import { ForgeError } from '../errors';
import { allowAll, allowList, allowReadOnly, type AnyToolDefinition, type ApprovalPolicy, type AskCallback } from '../tools';
import { closeMatches } from './suggest';

const KEYWORDS = ['all', 'none', 'ask'] as const;

/** The names --approve accepts for these tools: canonical names and aliases. */
export function approvableNames(tools: readonly AnyToolDefinition[]): string[] {
  return tools.flatMap((t) => [t.name, ...(t.aliases ?? [])]);
}

export function approvalFromOption(value: string, tools: readonly string[], ask?: AskCallback): ApprovalPolicy {
  if (value === 'all') return allowAll;
  if (value === 'none') return allowReadOnly();
  if (value === 'ask') {
    if (!ask) throw new ForgeError('INVALID_ARGUMENT', '--approve ask needs a terminal to ask on.', { hint: 'Give --approve all, none or a list of tool names.' });
    return allowReadOnly(ask);
  }
  const names = value.split(',').map((n) => n.trim()).filter(Boolean);
  if (names.length === 0) throw new ForgeError('INVALID_ARGUMENT', '--approve takes all, none, ask, or a comma-separated list of tool names.');
  const known = new Set(tools);
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    const first = unknown[0]!;
    const near = closeMatches(first, [...KEYWORDS, ...tools]);
    throw new ForgeError('INVALID_ARGUMENT', `--approve: ${unknown.map((n) => JSON.stringify(n)).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} neither all, none, ask nor a tool name.`, {
      data: { unknown },
      hint: `${near.length > 0 ? `did you mean ${near.join(' or ')}? ` : ''}"forge tools" lists the tool names; join several with commas.`,
    });
  }
  return allowList(names);
}
