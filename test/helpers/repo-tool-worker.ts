/** The Node sandbox the CLI uses (a worker thread), on the worker script the tests' global setup built into dist/. */
import { resolve } from 'node:path';
import { NodeWorkerSandbox } from '../../src/tools/repo/node/worker-sandbox';

export const REPO_TOOL_WORKER = resolve('dist/repo-tool-worker.cjs');

export function testWorkerSandbox(): NodeWorkerSandbox {
  return new NodeWorkerSandbox({ entry: REPO_TOOL_WORKER });
}
