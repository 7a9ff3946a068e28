/** Codes of the remote layer: push, fetch and pull of session branches through a git server. */
export const REMOTE_CODES = {
  REMOTE_NOT_FOUND: { kind: 'user', summary: 'No remote of that name is configured (remote.<name>.url).' },
  REMOTE_NAME_REQUIRED: { kind: 'user', summary: 'The operation keeps remote-tracking refs and needs a named remote, not a bare URL.' },
  REMOTE_URL_INVALID: { kind: 'user', summary: 'The remote URL cannot be parsed.' },
  REMOTE_PROTOCOL_UNSUPPORTED: { kind: 'unsupported', summary: 'The remote uses a transport the engine does not speak (ssh, git://, file paths); use https.' },
  REMOTE_INSECURE_HTTP: { kind: 'user', summary: 'Plain http to a host other than loopback is refused unless --allow-http is given.' },
  REMOTE_AUTH_FAILED: { kind: 'user', summary: 'The remote answered 401 or 403: credentials are missing, wrong, or lack permission.' },
  REMOTE_UNREACHABLE: { kind: 'conflict', summary: 'The remote could not be reached, or the connection broke before it answered.' },
  REMOTE_PROTOCOL_ERROR: { kind: 'remote', summary: 'The remote answered something that is not git smart-HTTP protocol.' },
  REMOTE_PACK_INVALID: { kind: 'remote', summary: 'The pack the remote sent is damaged or malformed (bad checksum, entry, delta or size); nothing was moved.' },
  REMOTE_TIMEOUT: { kind: 'remote', summary: 'The remote did not connect in time (http.connectTimeout) or sent too slowly (http.lowSpeedLimit / http.lowSpeedTime).' },
  REMOTE_REDIRECT_REFUSED: { kind: 'remote', summary: 'The remote redirected where forge does not follow: after the first request, to plain http, to a non-http scheme, or too many times.' },
  REMOTE_TOO_MANY_REFS: { kind: 'remote', summary: 'The remote advertises more new session branches than one fetch may create (forge.fetchMaxNewRefs).' },
  REMOTE_REJECTED: { kind: 'conflict', summary: 'The push was refused: not a fast-forward of what the remote holds, or the remote refused the update.' },
  REMOTE_LEASE_LOST: { kind: 'conflict', summary: '--force-with-lease: the remote no longer holds the commit last fetched from it.' },
  REMOTE_SESSION_NOT_FOUND: { kind: 'user', summary: 'The remote (or the last fetch from it) has no such session branch.' },
  PULL_NOT_FAST_FORWARD: { kind: 'conflict', summary: 'The local session has turns or pending changes of its own; it cannot be fast-forwarded to the remote one.' },
} as const;
