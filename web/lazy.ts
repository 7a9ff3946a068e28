/** The code-drawing part of the page (`code-view.ts`), initialized when a view first needs it. */
import type * as CodeView from './code-view';

export type { CodeView };

let loading: Promise<typeof CodeView> | undefined;

export function loadCodeView(): Promise<typeof CodeView> {
  // In a task of its own (the bundler runs the import as a microtask of the caller's task): its
  // initialization does not lengthen the task that asked for it.
  return (loading ??= new Promise((resolve) => setTimeout(resolve, 0)).then(() => import('./code-view')));
}
