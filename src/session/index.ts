export * from './state';
export { Session, type CommitTurnOptions, type TurnCommit, type SessionContext } from './session';
export { SessionStore, type CreateSessionOptions, type ResumeOptions, type SessionSummary, type TurnInfo, type HistoricalSession } from './store';
export { newSessionId, validateSessionId, sessionRef, sessionBranch, sessionStatePath, SESSION_REF_PREFIX, SESSION_DIR } from './ids';
export { turnCommitMessage, parseTrailers, summarizeLine, subjectOf, withReplaysTrailer } from './commit-message';
export { encodeState, decodeState } from './state-codec';
export { readStateAt, sessionIdOf } from './state-io';
export { filePatches, asText, type FilePatch, type FileChangeRef } from './file-patches';
export { savepoint, type MapSavepoint } from './tracked-map';
