/**
 * A map bounded by entries and by a total weight (segments listed, index runs): a hit moves
 * its entry to the young end, and the oldest entries go while either bound is passed. An
 * entry heavier than the whole weight bound is not kept at all.
 */
export class WeightedLru<V> {
  readonly #entries = new Map<string, { value: V; weight: number }>();
  readonly #entriesMax: number;
  readonly #weightMax: number;
  #weight = 0;

  constructor(entriesMax: number, weightMax: number) {
    this.#entriesMax = entriesMax;
    this.#weightMax = weightMax;
  }

  get weight(): number {
    return this.#weight;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, weight: number): void {
    this.delete(key);
    if (weight > this.#weightMax) return;
    this.#entries.set(key, { value, weight });
    this.#weight += weight;
    while (this.#entries.size > this.#entriesMax || this.#weight > this.#weightMax) {
      this.delete(this.#entries.keys().next().value!);
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#weight -= entry.weight;
  }
}
