/** A least-recently-used map bounded by a total weight (bytes, usually). */
export class WeightedLru<K, V> {
  private readonly map = new Map<K, { value: V; weight: number }>();
  private total = 0;

  constructor(
    private readonly maxWeight: number,
    private readonly weigh: (value: V) => number,
  ) {}

  get(key: K): V | undefined {
    const hit = this.map.get(key);
    if (hit === undefined) return undefined;
    // Re-insert so iteration order stays least-recent first.
    this.map.delete(key);
    this.map.set(key, hit);
    return hit.value;
  }

  set(key: K, value: V): void {
    const weight = this.weigh(value);
    if (weight > this.maxWeight) return;
    const old = this.map.get(key);
    if (old !== undefined) {
      this.total -= old.weight;
      this.map.delete(key);
    }
    this.map.set(key, { value, weight });
    this.total += weight;
    for (const [k, v] of this.map) {
      if (this.total <= this.maxWeight) break;
      this.map.delete(k);
      this.total -= v.weight;
    }
  }

  clear(): void {
    this.map.clear();
    this.total = 0;
  }

  get size(): number {
    return this.map.size;
  }
}
