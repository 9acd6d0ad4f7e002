import type { Labels, Sample } from "./exposition.ts";

/**
 * A Prometheus histogram with fixed buckets, per label set: counts per upper bound, a sum and
 * a count. Fixed buckets keep every isolate's series alike, so Prometheus can add them up
 * (histogram_quantile over sum by (le)). Pure; time is the caller's.
 */
export class Histogram {
  readonly #bounds: readonly number[];
  readonly #series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();

  /** `bounds`: the buckets' upper bounds, ascending; `+Inf` is added. */
  constructor(bounds: readonly number[]) {
    for (let index = 1; index < bounds.length; index++) {
      if (!(bounds[index]! > bounds[index - 1]!)) throw new Error("histogram bounds must ascend");
    }
    this.#bounds = bounds;
  }

  get seriesCount(): number {
    return this.#series.size;
  }

  has(labels: Labels): boolean {
    return this.#series.has(labelKey(labels));
  }

  /** `key`: labelKey(labels), when the caller has it already. */
  observe(labels: Labels, value: number, key = labelKey(labels)): void {
    let series = this.#series.get(key);
    if (!series) {
      series = { labels, counts: this.#bounds.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    const index = this.#bounds.findIndex((bound) => value <= bound);
    if (index >= 0) series.counts[index]!++;
    series.sum += value;
    series.count++;
  }

  /** `<name>_bucket` (cumulative, `le` last, ending at "+Inf"), `<name>_sum`, `<name>_count` per series. */
  samples(name: string): Sample[] {
    const samples: Sample[] = [];
    for (const { labels, counts, sum, count } of this.#series.values()) {
      let cumulative = 0;
      this.#bounds.forEach((bound, index) => {
        cumulative += counts[index]!;
        samples.push({ name: `${name}_bucket`, labels: { ...labels, le: String(bound) }, value: cumulative });
      });
      samples.push({ name: `${name}_bucket`, labels: { ...labels, le: "+Inf" }, value: count });
      samples.push({ name: `${name}_sum`, labels, value: sum });
      samples.push({ name: `${name}_count`, labels, value: count });
    }
    return samples;
  }
}

/** One key per label set, whatever the order its labels were written in. */
export function labelKey(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
