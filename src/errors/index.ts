export { ForgeError, isForgeError, toForgeError, type ForgeErrorOptions } from './forge-error';
export { ERROR_CODES, type ErrorCode, type ErrorKind } from './codes';
export { escapeControl, quoteRemote } from './untrusted-text';
