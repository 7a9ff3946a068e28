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

/**
 * A queue for a guest of another queue's owner (a mount beside the MCP server's tool calls): its
 * operations take their turn on the host queue, except while an operation running there admits
 * them (run_command running a command in the mount, whose file operations would otherwise wait
 * for the very call that waits for them). Admitted operations still run one at a time.
 */
export class GuestQueue extends SerialQueue {
  private admitted: SerialQueue | null = null;

  constructor(private readonly host: SerialQueue) {
    super();
  }

  override run<T>(operation: () => Promise<T>): Promise<T> {
    return (this.admitted ?? this.host).run(operation);
  }

  override idle(): Promise<void> {
    return (this.admitted ?? this.host).idle();
  }

  /** Runs `body` (from inside an operation of the host queue) with this queue's operations let in. */
  async admit<T>(body: () => Promise<T>): Promise<T> {
    if (this.admitted !== null) return body();
    const admitted = new SerialQueue();
    this.admitted = admitted;
    try {
      return await body();
    } finally {
      await admitted.idle();
      this.admitted = null;
    }
  }
}
