/** Codes of the mcp layer. */
export const MCP_CODES = {} as const;
