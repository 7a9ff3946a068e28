/** --approve all | none | TOOL,TOOL  ->  an approval policy. */
import { ForgeError } from '../errors';
import { allowAll, allowList, allowReadOnly, type ApprovalPolicy, type AskCallback } from '../tools';

export function approvalFromOption(value: string, ask?: AskCallback): ApprovalPolicy {
  if (value === 'all') return allowAll;
  if (value === 'none') return allowReadOnly();
  if (value === 'ask') {
    if (!ask) throw new ForgeError('INVALID_ARGUMENT', '--approve ask needs a terminal to ask on.');
    return allowReadOnly(ask);
  }
  const names = value.split(',').map((n) => n.trim()).filter(Boolean);
  if (names.length === 0) throw new ForgeError('INVALID_ARGUMENT', '--approve takes all, none, ask, or a comma-separated list of tool names.');
  return allowList(names);
}
