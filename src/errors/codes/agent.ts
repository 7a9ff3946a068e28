/** Codes of the agent layer. */
export const AGENT_CODES = {} as const;
