/** `forge mount`'s core: a session's view as file-system operations (the FUSE binding is in node/). */
export { MountFs, type MountFsOptions } from './mount-fs';
export { errnoOf, fsError, type Errno } from './errno';
export type { FileAttr } from './file-attr';
export type { ScratchLayer } from './scratch';
export { SerialQueue } from '../session/serial-queue';
export { SessionEditor, MOUNT_EDIT_TOOL } from './session-edits';
export { isHiddenPath, repoPathOf } from './mount-paths';
