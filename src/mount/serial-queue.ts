/**
 * Runs tasks one at a time, in order. Every change to the session (a mount operation, and a tool
 * call made in the same process, e.g. `forge mcp --mount`) goes through one queue: the pending
 * layer journals one unit of change at a time (beginBatch/endBatch are not re-entrant).
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
