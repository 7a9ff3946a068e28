/** Codes of the remote layer: push, fetch and pull of session branches through a git server. */
export const REMOTE_CODES = {
  REMOTE_NOT_FOUND: { kind: 'user', summary: 'No remote of that name is configured (remote.<name>.url).' },
  REMOTE_NAME_REQUIRED: { kind: 'user', summary: 'The operation keeps remote-tracking refs and needs a named remote, not a bare URL.' },
  REMOTE_URL_INVALID: { kind: 'user', summary: 'The remote URL cannot be parsed.' },
  REMOTE_PROTOCOL_UNSUPPORTED: { kind: 'unsupported', summary: 'The remote uses a transport the engine does not speak (ssh, git://, file paths); use https.' },
  REMOTE_INSECURE_HTTP: { kind: 'user', summary: 'Plain http to a host other than loopback is refused unless --allow-http is given.' },
  REMOTE_AUTH_FAILED: { kind: 'user', summary: 'The remote answered 401 or 403: credentials are missing, wrong, or lack permission.' },
  REMOTE_UNREACHABLE: { kind: 'conflict', summary: 'The remote could not be reached, or the connection broke before it answered.' },
  REMOTE_PROTOCOL_ERROR: { kind: 'internal', summary: 'The remote answered something that is not git smart-HTTP protocol.' },
  REMOTE_REJECTED: { kind: 'conflict', summary: 'The push was refused: not a fast-forward of what the remote holds, or the remote refused the update.' },
  REMOTE_LEASE_LOST: { kind: 'conflict', summary: '--force-with-lease: the remote no longer holds the commit last fetched from it.' },
  REMOTE_SESSION_NOT_FOUND: { kind: 'user', summary: 'The remote (or the last fetch from it) has no such session branch.' },
  PULL_NOT_FAST_FORWARD: { kind: 'conflict', summary: 'The local session has turns or pending changes of its own; it cannot be fast-forwarded to the remote one.' },
  REMOTE_PACK_INVALID: { kind: 'conflict', summary: 'The pack the remote sent is damaged or malformed (signature, checksum, inflate, delta); nothing was stored and no ref moved.' },
  REMOTE_PACK_TOO_LARGE: { kind: 'conflict', summary: 'The pack, or an object in it, is larger than the configured limit (forge.maxPackSize, forge.maxObjectSize), or an entry inflates past its declared size; nothing was stored and no ref moved.' },
  REMOTE_OBJECT_INVALID: { kind: 'conflict', summary: "An object the remote sent fails git's fsck (transfer.fsckObjects): a .git path, '..', a bad mode, a malformed commit; nothing was stored and no ref moved." },
  REMOTE_OBJECTS_MISSING: { kind: 'conflict', summary: 'A fetched tip does not reach a complete history: an object it names is neither in the pack nor in the repository; nothing was stored and no ref moved.' },
} as const;
