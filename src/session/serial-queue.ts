/**
 * Runs operations one at a time, in arrival order. An MCP client may send several requests
 * without waiting for answers, and a mount's file-system operations arrive concurrently; the
 * session's view, state and journal must see one at a time (its journal batch is not
 * re-entrant). `forge mcp --mount` gives the server and the mount the same queue.
 */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();

  run<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.tail.then(operation);
    // A failed operation does not stop the ones queued after it.
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Resolves once every operation queued so far has settled. */
  idle(): Promise<void> {
    return this.tail;
  }
}
