/**
 * In-turn state journaling by deltas: each record holds only what changed since the previous
 * one (new messages and tool calls, changed keys of the maps, replaced small fields), so a turn
 * of n tool calls journals O(n) bytes instead of n snapshots of a growing state. Pure.
 */
import type { SessionState } from './state';
import { takeChangedKeys, trackKeys } from './tracked-map';

type MapField = 'readHashes' | 'clipboards';
type ReplacedField = 'mode' | 'activeFiles' | 'undo' | 'updatedAt' | 'model';

const MAP_FIELDS: readonly MapField[] = ['readHashes', 'clipboards'];
const REPLACED_FIELDS: readonly ReplacedField[] = ['mode', 'activeFiles', 'undo', 'updatedAt', 'model'];

export interface StateDelta {
  messages?: SessionState['messages'];
  toolCalls?: SessionState['toolCalls'];
  set?: Partial<Record<MapField, Record<string, string>>>;
  unset?: Partial<Record<MapField, string[]>>;
  replace?: Partial<Pick<SessionState, ReplacedField>>;
}

/** What has been journaled so far, to diff the live state against. */
export class StateDeltaTracker {
  private messages = 0;
  private toolCalls = 0;
  private maps: Record<MapField, Record<string, string>> = { readHashes: {}, clipboards: {} };
  private replaced = new Map<ReplacedField, string>();

  constructor(committed: SessionState) {
    this.reset(committed);
  }

  /** After a commit (or on open): the committed state is the new starting point. */
  reset(state: SessionState): void {
    this.messages = state.messages.length;
    this.toolCalls = state.toolCalls.length;
    for (const field of MAP_FIELDS) {
      this.maps[field] = { ...state[field] };
      // Changes made before this point are in the state being reset to.
      takeChangedKeys(state[field]);
    }
    for (const field of REPLACED_FIELDS) this.replaced.set(field, JSON.stringify(state[field] ?? null));
  }

  /**
   * The delta from what was journaled to `state`, or null when nothing changed; marks it
   * journaled. Puts `state`'s maps behind key-tracking proxies (same contents): the next delta
   * then looks at the keys that changed only.
   */
  take(state: SessionState): StateDelta | null {
    const delta: StateDelta = {};
    if (state.messages.length > this.messages) delta.messages = state.messages.slice(this.messages);
    if (state.toolCalls.length > this.toolCalls) delta.toolCalls = state.toolCalls.slice(this.toolCalls);
    for (const field of MAP_FIELDS) {
      const before = this.maps[field];
      const now = state[field];
      const changed = takeChangedKeys(now);
      // A tracked map: only its changed keys. A map replaced by another object: every key, once.
      for (const key of changed ?? Object.keys(now)) {
        // Without a prototype (a dictionary): an object literal keyed by a path is a new object shape per call.
        if (key in now && before[key] !== now[key]) ((delta.set ??= {})[field] ??= Object.create(null) as Record<string, string>)[key] = now[key]!;
      }
      for (const key of changed ?? Object.keys(before)) if (key in before && !(key in now)) ((delta.unset ??= {})[field] ??= []).push(key);
      // The live state's maps are tracked from their first delta on (not the state reset to,
      // which may be a committed state a caller clones).
      if (changed === null) state[field] = trackKeys(now);
    }
    for (const field of REPLACED_FIELDS) {
      const json = JSON.stringify(state[field] ?? null);
      // null, not undefined: JSON would drop an undefined field and the removal with it.
      if (json !== this.replaced.get(field)) {
        (delta.replace ??= {})[field] = (state[field] ?? null) as never;
        this.replaced.set(field, json);
      }
    }
    if (Object.keys(delta).length === 0) return null;
    // Mark journaled by applying the delta to the copy (not by copying every map again).
    this.messages = state.messages.length;
    this.toolCalls = state.toolCalls.length;
    for (const field of MAP_FIELDS) {
      Object.assign(this.maps[field], delta.set?.[field]);
      for (const key of delta.unset?.[field] ?? []) delete this.maps[field][key];
    }
    return delta;
  }
}

/** Replays journaled deltas over the committed state, in order. */
export function applyStateDeltas(committed: SessionState, deltas: readonly StateDelta[]): SessionState {
  const state: SessionState = structuredClone(committed);
  for (const delta of deltas) {
    if (delta.messages) state.messages.push(...delta.messages);
    if (delta.toolCalls) state.toolCalls.push(...delta.toolCalls);
    for (const field of MAP_FIELDS) {
      Object.assign(state[field], delta.set?.[field] ?? {});
      for (const key of delta.unset?.[field] ?? []) delete state[field][key];
    }
    for (const field of REPLACED_FIELDS) {
      if (delta.replace && field in delta.replace) {
        const value = delta.replace[field];
        if (value === undefined || value === null) {
          if (field === 'undo') state.undo = null;
          else delete (state as Partial<SessionState>)[field];
        } else {
          (state as Record<string, unknown>)[field] = value;
        }
      }
    }
  }
  return state;
}
