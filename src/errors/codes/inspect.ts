/** Codes of the inspector (`forge inspect`): the web server's refusals. */
export const INSPECT_CODES = {
  INSPECT_HOST_REFUSED: { kind: 'user', summary: 'A request to the inspector named a Host other than the one it serves (DNS rebinding guard).' },
  INSPECT_ACCESS_DENIED: { kind: 'user', summary: 'A request to the inspector came without the access cookie set by the secret URL it printed on its terminal.' },
  INSPECT_TOKEN_INVALID: { kind: 'user', summary: 'A state-changing request to the inspector came without its start-up token.' },
  INSPECT_ROUTE_NOT_FOUND: { kind: 'user', summary: 'No inspector page or API route at that path and method.' },
} as const;
