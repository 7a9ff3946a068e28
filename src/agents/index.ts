export { claudeCodeTurns, claudeCodeLastTurn } from './claude-code';
export { codexTurns, codexLastTurn } from './codex';
export { recordAgentTurn, turnsToCommit } from './record-turn';
export { jsonLines, type AgentName, type ConvertedTurn } from './transcript';
