import { describe, expect, it } from "vitest";
import { family, formatExposition, formatValue } from "../../../src/metrics/exposition.ts";
import { Histogram } from "../../../src/metrics/histogram.ts";
import { parseExposition, sampleValue } from "../../workers/metrics/support/parse-exposition.ts";

describe("formatExposition (text format 0.0.4)", () => {
  it("writes HELP and TYPE once per family, then its samples, each line ending in a newline", () => {
    const text = formatExposition([
      family("tributary_partition_high_watermark", "gauge", "The high watermark.", [
        { labels: { topic: "orders", partition: "0" }, value: 42 },
        { labels: { topic: "orders", partition: "1" }, value: 7 },
      ]),
      family("tributary_router_errors_total", "counter", "Errors.", []),
    ]);
    expect(text).toBe(
      [
        "# HELP tributary_partition_high_watermark The high watermark.",
        "# TYPE tributary_partition_high_watermark gauge",
        'tributary_partition_high_watermark{topic="orders",partition="0"} 42',
        'tributary_partition_high_watermark{topic="orders",partition="1"} 7',
        "# HELP tributary_router_errors_total Errors.",
        "# TYPE tributary_router_errors_total counter",
        "",
      ].join("\n"),
    );
  });

  it("escapes label values (backslash, quote, newline) and help text, and reads back the same", () => {
    const awkward = 'a\\b"c\nd';
    const text = formatExposition([family("tributary_group_lag", "gauge", "Lag\\ per\npartition.", [{ labels: { group: awkward }, value: 3 }])]);
    expect(text).toContain('tributary_group_lag{group="a\\\\b\\"c\\nd"} 3\n');
    expect(text).toContain("# HELP tributary_group_lag Lag\\\\ per\\npartition.\n");
    const parsed = parseExposition(text);
    expect(parsed.get("tributary_group_lag")!.help).toBe("Lag\\ per\npartition.");
    expect(sampleValue(parsed, "tributary_group_lag", { group: awkward })).toBe(3);
  });

  it("writes infinities and NaN as Prometheus reads them", () => {
    expect([Infinity, -Infinity, NaN, 0.25, 12].map(formatValue)).toEqual(["+Inf", "-Inf", "NaN", "0.25", "12"]);
  });

  it("refuses an invalid metric or label name, and a family named twice", () => {
    expect(() => formatExposition([family("tributary-bad", "gauge", "x", [])])).toThrow(/invalid metric name/);
    expect(() => formatExposition([family("tributary_x", "gauge", "x", [{ labels: { "bad-label": "v" }, value: 1 }])])).toThrow(/invalid label name/);
    expect(() => formatExposition([family("tributary_x", "gauge", "x", []), family("tributary_x", "gauge", "x", [])])).toThrow(/twice/);
  });
});

describe("Histogram", () => {
  it("counts cumulatively per bucket, +Inf last, with sum and count, per label set", () => {
    const histogram = new Histogram([0.1, 1]);
    histogram.observe({ route: "/a" }, 0.05);
    histogram.observe({ route: "/a" }, 0.5);
    histogram.observe({ route: "/a" }, 3);
    histogram.observe({ route: "/b" }, 0.1);
    const samples = histogram.samples("d_seconds");
    const a = samples.filter((sample) => sample.labels.route === "/a").map(({ name, labels, value }) => [name, labels.le, value]);
    expect(a).toEqual([
      ["d_seconds_bucket", "0.1", 1],
      ["d_seconds_bucket", "1", 2],
      ["d_seconds_bucket", "+Inf", 3],
      ["d_seconds_sum", undefined, 3.55],
      ["d_seconds_count", undefined, 3],
    ]);
    expect(samples.find((sample) => sample.labels.route === "/b" && sample.labels.le === "0.1")!.value).toBe(1);
  });

  it("refuses bounds that do not ascend", () => {
    expect(() => new Histogram([1, 1])).toThrow(/ascend/);
  });
});
