/**
 * Metric families and Prometheus's text exposition format, version 0.0.4 (docs/metrics.md):
 *
 *   # HELP <name> <help, with \ and newline escaped>
 *   # TYPE <name> gauge|counter|histogram
 *   <sample name>{<label>="<value, with \ " and newline escaped>",...} <value>
 *
 * One HELP and one TYPE line per family, the family's samples right after them, a newline at
 * the end of every line. A histogram's samples are `<name>_bucket{le=...}` (cumulative, the
 * last `le="+Inf"`), `<name>_sum` and `<name>_count`. Pure: no I/O, no `cloudflare:*`.
 */

export type MetricType = "gauge" | "counter" | "histogram";

export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  /** The family's name, or for a histogram the family's name with `_bucket`, `_sum` or `_count`. */
  name: string;
  labels: Labels;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help: string;
  samples: Sample[];
}

/** The content type of the text format, as Prometheus asks for it. */
export const expositionContentType = "text/plain; version=0.0.4; charset=utf-8";

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function formatExposition(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const family of families) {
    if (!metricName.test(family.name)) throw new Error(`invalid metric name ${family.name}`);
    if (seen.has(family.name)) throw new Error(`metric family ${family.name} appears twice`);
    seen.add(family.name);
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`);
    lines.push(`# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) lines.push(formatSample(sample));
  }
  return lines.map((line) => `${line}\n`).join("");
}

function formatSample(sample: Sample): string {
  if (!metricName.test(sample.name)) throw new Error(`invalid sample name ${sample.name}`);
  const labels = Object.entries(sample.labels);
  for (const [name] of labels) if (!labelName.test(name) || name.startsWith("__")) throw new Error(`invalid label name ${name}`);
  const rendered = labels.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(",");
  return `${sample.name}${labels.length > 0 ? `{${rendered}}` : ""} ${formatValue(sample.value)}`;
}

/** Go's float formatting as Prometheus reads it: integers as digits, infinities as +Inf/-Inf. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

function escapeHelp(help: string): string {
  return help.replaceAll("\\", "\\\\").replaceAll("\n", "\\n");
}

function escapeLabelValue(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

/** A gauge or counter family from its samples' labels and values. */
export function family(name: string, type: Exclude<MetricType, "histogram">, help: string, samples: readonly { labels: Labels; value: number }[]): MetricFamily {
  return { name, type, help, samples: samples.map(({ labels, value }) => ({ name, labels, value })) };
}
