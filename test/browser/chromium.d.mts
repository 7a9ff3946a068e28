export const CHROMIUM_PATH: string;
export function chromiumProblem(): string | null;
export function chromiumSkipped(env?: Record<string, string | undefined>): boolean;
export function chromiumTestFiles(): string[];
export function chromiumSkipNotice(env?: Record<string, string | undefined>): { fail: boolean; line: string } | null;
export interface Tab {
  call<T = unknown>(name: string, ...args: unknown[]): Promise<T>;
  /** Reloads the page at once (nothing waited for before) and resolves when it is ready again. */
  reload(): Promise<void>;
  close(): Promise<void>;
}
export interface Harness extends Tab {
  browserVersion: string;
  /** The page's origin, e.g. http://127.0.0.1:12345. */
  origin: string;
  /** Another tab of the same origin and storage (IndexedDB, Web Locks). */
  newTab(): Promise<Tab>;
  close(): Promise<void>;
}
export function openHarness(options?: { gitRoot?: string }): Promise<Harness>;
