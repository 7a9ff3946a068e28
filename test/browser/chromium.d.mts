export const CHROMIUM_PATH: string;
export function chromiumProblem(): string | null;
export function chromiumSkipped(env?: Record<string, string | undefined>): boolean;
export function chromiumTestFiles(): string[];
export function chromiumSkipNotice(env?: Record<string, string | undefined>): { fail: boolean; line: string } | null;
export interface Harness {
  browserVersion: string;
  /** The page's origin, e.g. http://127.0.0.1:12345. */
  origin: string;
  call<T = unknown>(name: string, ...args: unknown[]): Promise<T>;
  close(): Promise<void>;
}
export function openHarness(options?: { gitRoot?: string }): Promise<Harness>;
