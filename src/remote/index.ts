/** Remotes: push, fetch and pull of session branches through a git server's smart HTTP. */
export { pushSessions, type PushOptions, type PushResult, type PushedSession, type PushStatus } from './push';
export { fetchSessions, type FetchOptions, type FetchResult, type FetchedSession } from './fetch';
export { pullSession, type PullOptions, type PullResult } from './pull';
export { remoteSessionStatus, resolveFetchedSession, type RemoteSessionStatus } from './status';
export { openRemote, trackingRef, sessionHead, DEFAULT_REMOTE, type Remote, type RemoteOptions } from './remote';
export { parseRemoteUrl, redactUrl, isLoopback, type RemoteEndpoint } from './remote-url';
export { TOKEN_ENV, TOKEN_USER_ENV, type Credentials, type CredentialHelper } from './auth';
export { HttpTransport, type FetchFunction } from './http-transport';
export { leftRight, divergence, isAncestorOf, commitLoader, type Divergence } from './commit-walk';
export { writePack, type PackObject } from './pack-writer';
export { unpackToQuarantine, DEFAULT_UNPACK_LIMITS, type StreamInflater, type UnpackLimits, type Quarantine } from './pack-unpack';
export { receivePack, unpackInto, unpackLimits } from './received-objects';
