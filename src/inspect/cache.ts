/**
 * What the inspector derives from immutable git objects, kept per repository: a session's row
 * summary by its head commit, a timeline turn by its commit. A commit never changes, so an
 * entry never goes stale; what can change (refs, the pending journals, the head's state as the
 * timeline reads it) is read on every request. Bounded: least recently used entries go first.
 */
import type { Repository } from '../git';

export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Map keeps insertion order: re-inserting makes this the most recently used.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}

const perRepository = new WeakMap<Repository, Map<string, BoundedCache<unknown>>>();

/** The cache named `name` of this repository (created with room for `max` entries). */
export function repositoryCache<V>(repo: Repository, name: string, max: number): BoundedCache<V> {
  let caches = perRepository.get(repo);
  if (!caches) perRepository.set(repo, (caches = new Map()));
  let cache = caches.get(name);
  if (!cache) caches.set(name, (cache = new BoundedCache<unknown>(max)));
  return cache as BoundedCache<V>;
}
