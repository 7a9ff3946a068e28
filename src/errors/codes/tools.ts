/** Codes of the tool layer (schemas, sandbox, modes, approval, read tracking, tool limits). */
export const TOOL_CODES = {
  TOOL_INPUT_INVALID: { kind: 'user', summary: 'The tool arguments do not match its schema.' },
  TOOL_DISABLED: { kind: 'user', summary: 'The tool is disabled by configuration.' },
  TOOL_DISABLED_IN_MODE: { kind: 'user', summary: 'The tool writes and the session is in restricted (read-only) mode.' },
  TOOL_DENIED: { kind: 'user', summary: 'The approval policy denied the call; nothing was changed.' },

  // Path sandbox: one code per rejection reason.
  PATH_EMPTY: { kind: 'user', summary: 'The path is empty.' },
  PATH_ABSOLUTE: { kind: 'user', summary: 'The path is absolute (or home- or drive-relative) instead of repo-relative.' },
  PATH_ESCAPES_ROOT: { kind: 'user', summary: "The path contains a '..' component." },
  PATH_DOT_COMPONENT: { kind: 'user', summary: "The path contains a '.' component." },
  PATH_EMPTY_COMPONENT: { kind: 'user', summary: "The path has an empty component ('//' or a trailing '/')." },
  PATH_CONTROL_CHARACTER: { kind: 'user', summary: 'The path contains NUL, a control character or a bidirectional override.' },
  PATH_INVALID_UNICODE: { kind: 'user', summary: 'The path is not well-formed Unicode (a lone surrogate).' },
  PATH_BACKSLASH: { kind: 'user', summary: 'The path contains a backslash; paths use POSIX separators.' },
  PATH_TOO_LONG: { kind: 'user', summary: 'The path or one of its components is too long.' },
  PATH_GIT_DIR: { kind: 'user', summary: 'A path component names the .git directory (in any spelling git forbids).' },
  PATH_RESERVED: { kind: 'user', summary: 'The path is under .forge/, which is reserved for the engine.' },
  PATH_DENIED: { kind: 'user', summary: 'The path matches a denied pattern (secrets such as .env or keys).' },
  PATH_THROUGH_SYMLINK: { kind: 'user', summary: 'A parent component of the path is a symlink.' },
  PATH_THROUGH_SUBMODULE: { kind: 'user', summary: 'A parent component of the path is a submodule.' },
  PATH_IS_SYMLINK: { kind: 'user', summary: 'The path is a symlink; tools do not write through or over symlinks.' },
  PATH_IS_SUBMODULE: { kind: 'user', summary: 'The path is a submodule, not a file.' },

  // Read tracking and content checks.
  FILE_NOT_READ: { kind: 'user', summary: 'The file was not read in this session before being changed.' },
  STALE_FILE: { kind: 'conflict', summary: 'The file changed since it was last read, or file_hash does not match it.' },
  FILE_HASH_REQUIRED: { kind: 'user', summary: 'Configuration requires file_hash on every edit.' },
  BINARY_FILE: { kind: 'unsupported', summary: 'The file is binary (not UTF-8 text) and cannot be edited as text.' },
  EDIT_TOO_LARGE: { kind: 'user', summary: 'An edit argument exceeds its configured byte limit.' },
} as const;
