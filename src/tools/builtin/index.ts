/** The built-in tools, in the order they are offered to a model. */
import type { AnyToolDefinition } from '../define';
import { deleteFileTool } from './delete-file';
import { editTool } from './edit';
import { listActiveFilesTool } from './list-active-files';
import { listFilesTool } from './list-files';
import { patchTool } from './patch';
import { readFileTool } from './read-file';
import { requestModeUpgradeTool } from './request-mode-upgrade';
import { searchTool } from './search';
import { searchReplaceTool } from './search-replace';
import { updateContextTool } from './update-context';
import { undoTool } from './undo';
import { writeFileTool } from './write-file';

export const BUILTIN_TOOLS: readonly AnyToolDefinition[] = [
  readFileTool,
  listFilesTool,
  searchTool,
  editTool,
  patchTool,
  searchReplaceTool,
  writeFileTool,
  deleteFileTool,
  updateContextTool,
  listActiveFilesTool,
  undoTool,
  requestModeUpgradeTool,
];

export {
  deleteFileTool,
  editTool,
  listActiveFilesTool,
  listFilesTool,
  patchTool,
  readFileTool,
  requestModeUpgradeTool,
  searchReplaceTool,
  searchTool,
  undoTool,
  updateContextTool,
  writeFileTool,
};
