/**
 * State maps (read hashes, clipboards) behind a proxy that notes which keys are set or deleted.
 * Tools update these maps in place, one or two keys per call, while a long session's maps hold
 * thousands of keys: with the notes, journaling a call's delta and undoing a failed call cost the
 * keys that changed, not a pass over (or a copy of) every key. Reads, enumeration, spreads and
 * JSON pass through the proxy; structuredClone refuses proxies, so callers copy with JSON.
 * Pure.
 */

type StateMap = Record<string, string>;

const ABSENT = Symbol('absent');

interface Tracking {
  target: StateMap;
  /** Keys set or deleted since the last `takeChangedKeys`. */
  changed: Set<string>;
  /** While a savepoint is open: each changed key's value before its first change. */
  before: Map<string, string | typeof ABSENT> | null;
}

const TRACKING = new WeakMap<object, Tracking>();

/** The map itself when already tracked, else a tracking proxy over it (same contents). */
export function trackKeys(map: StateMap): StateMap {
  if (TRACKING.has(map)) return map;
  const tracking: Tracking = { target: map, changed: new Set(), before: null };
  const note = (key: string | symbol) => {
    if (typeof key !== 'string') return;
    tracking.changed.add(key);
    if (tracking.before !== null && !tracking.before.has(key)) tracking.before.set(key, Object.hasOwn(map, key) ? map[key]! : ABSENT);
  };
  const proxy = new Proxy(map, {
    set: (target, key, value) => (note(key), Reflect.set(target, key, value)),
    deleteProperty: (target, key) => (note(key), Reflect.deleteProperty(target, key)),
    defineProperty: (target, key, descriptor) => (note(key), Reflect.defineProperty(target, key, descriptor)),
  });
  TRACKING.set(proxy, tracking);
  return proxy;
}

/** The keys changed since the last call (and forgets them); null when the map is not tracked. */
export function takeChangedKeys(map: StateMap): string[] | null {
  const tracking = TRACKING.get(map);
  if (tracking === undefined) return null;
  const keys = [...tracking.changed];
  tracking.changed.clear();
  return keys;
}

export interface MapSavepoint {
  /** The map as it was at the savepoint (the same object when tracked, else a copy). */
  restore(): StateMap;
  /** Ends the savepoint without restoring. */
  release(): void;
}

/**
 * A point to return the map to. A tracked map remembers the old value of each key as it first
 * changes (cost: the changes); any other map, or one already under a savepoint, is copied.
 */
export function savepoint(map: StateMap): MapSavepoint {
  const tracking = TRACKING.get(map);
  if (tracking === undefined || tracking.before !== null) {
    const copy = { ...map };
    return { restore: () => copy, release: () => undefined };
  }
  const before = new Map<string, string | typeof ABSENT>();
  tracking.before = before;
  const release = () => {
    if (tracking.before === before) tracking.before = null;
  };
  return {
    restore() {
      release();
      // Through the proxy, so that the journal sees the restored keys change back.
      for (const [key, value] of before) {
        if (value === ABSENT) delete map[key];
        else map[key] = value;
      }
      return map;
    },
    release,
  };
}
