/**
 * A small, strict reader of Prometheus's text exposition format 0.0.4, written for the tests
 * (independent of src/metrics/exposition.ts, which writes it): HELP and TYPE lines, samples
 * with labels (escapes \\ \" \n), values including +Inf/-Inf/NaN. Throws on anything else.
 */
export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface ParsedFamily {
  name: string;
  help: string;
  type: string;
  samples: ParsedSample[];
}

const samplePattern = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/;

export function parseExposition(text: string): Map<string, ParsedFamily> {
  if (text !== "" && !text.endsWith("\n")) throw new Error("the exposition must end with a newline");
  const families = new Map<string, ParsedFamily>();
  let current: ParsedFamily | undefined;
  for (const line of text.split("\n").slice(0, -1)) {
    if (line.startsWith("# HELP ")) {
      const [name, ...help] = line.slice(7).split(" ");
      if (families.has(name!)) throw new Error(`family ${name} appears twice`);
      current = { name: name!, help: help.join(" ").replaceAll("\\n", "\n").replaceAll("\\\\", "\\"), type: "", samples: [] };
      families.set(current.name, current);
    } else if (line.startsWith("# TYPE ")) {
      const [name, type] = line.slice(7).split(" ");
      if (!current || current.name !== name) throw new Error(`TYPE for ${name} without its HELP right before`);
      current.type = type!;
    } else {
      const match = samplePattern.exec(line);
      if (!match || !current) throw new Error(`not a sample line: ${line}`);
      const [, name, , labelText, valueText] = match;
      const base = current.type === "histogram" ? name!.replace(/_(bucket|sum|count)$/, "") : name!;
      if (base !== current.name) throw new Error(`sample ${name} outside its family ${current.name}`);
      current.samples.push({ name: name!, labels: parseLabels(labelText ?? ""), value: parseValue(valueText!) });
    }
  }
  return families;
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let at = 0;
  while (at < text.length) {
    const equals = text.indexOf('="', at);
    if (equals < 0) throw new Error(`bad labels: ${text}`);
    const name = text.slice(at, equals);
    let value = "";
    let index = equals + 2;
    for (; text[index] !== '"'; index++) {
      if (index >= text.length) throw new Error(`unterminated label value: ${text}`);
      if (text[index] === "\\") {
        index++;
        value += text[index] === "n" ? "\n" : text[index];
      } else {
        value += text[index];
      }
    }
    labels[name] = value;
    at = index + 1;
    if (at < text.length) {
      if (text[at] !== ",") throw new Error(`bad labels: ${text}`);
      at++;
    }
  }
  return labels;
}

function parseValue(text: string): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`bad value ${text}`);
  return value;
}

/** The value of the one sample of `name` whose labels include `labels`; throws when there is none or several. */
export function sampleValue(families: Map<string, ParsedFamily>, name: string, labels: Record<string, string>): number {
  const family = families.get(name.replace(/_(bucket|sum|count)$/, "")) ?? families.get(name);
  const matching = (family?.samples ?? []).filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (matching.length !== 1) throw new Error(`${matching.length} samples of ${name} with ${JSON.stringify(labels)}`);
  return matching[0]!.value;
}
