export { Blamer, originKey, type BlameHistory, type BlameResult, type BlamedLine, type BlameOrigin } from './blame';
export { RepositoryHistory } from './repo-history';
export { porcelain, blameGroups, lineText, type PorcelainCommit } from './porcelain';
export { blameFile, fileProvenance, whyLine, type BlamedFile, type LineRange, type FileProvenance, type LineProvenance, type LineConversation, type TurnOfLine } from './line-provenance';
export { callThatWrote, type CallRef } from './turn-calls';
export { searchSessions, excerpt, type SessionSearchQuery, type SessionSearchHit } from './session-search';
export { parseSince } from './since-date';
