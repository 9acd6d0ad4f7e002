/** A uPlot time chart (bundled, no CDN), sized to its container, colours from the page's theme. */
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";

const xSpanMinSeconds = 60;

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  colorVar: string;
}

export function TimeChart(props: { title: string; times: number[]; series: ChartSeries[]; height?: number; unit: string }) {
  const container = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const { times, series, height = 220, unit } = props;
  const shape = series.map((entry) => entry.label).join("|");

  useEffect(() => {
    const element = container.current;
    if (element === null) return;
    const style = getComputedStyle(document.documentElement);
    const color = (name: string) => style.getPropertyValue(name).trim() || "#888";
    const axis = { stroke: color("--muted"), grid: { stroke: color("--grid") }, ticks: { stroke: color("--grid") } };
    plot.current = new uPlot(
      {
        width: Math.max(element.clientWidth, 300),
        height,
        series: [{}, ...series.map((entry) => ({ label: entry.label, stroke: color(entry.colorVar), width: 2, value: (_: uPlot, v: number | null) => (v === null ? "—" : `${v.toFixed(2)} ${unit}`) }))],
        axes: [axis, { ...axis, size: 60 }],
        // A window of at least a minute, so one sample is a point on it rather than a chart of years.
        scales: { x: { time: true, range: (_u, min, max) => (max - min < xSpanMinSeconds ? [max - xSpanMinSeconds, max] : [min, max]) }, y: { range: (_u, min, max) => [0, Math.max(max, min, 1)] } },
      },
      [times, ...series.map((entry) => entry.values)],
      element,
    );
    const resize = () => plot.current?.setSize({ width: Math.max(element.clientWidth, 300), height });
    window.addEventListener("resize", resize);
    return () => {
      window.removeEventListener("resize", resize);
      plot.current?.destroy();
      plot.current = null;
    };
  }, [shape, height, unit]);

  useEffect(() => {
    plot.current?.setData([times, ...series.map((entry) => entry.values)]);
  }, [times, series]);

  return (
    <figure class="chart">
      <figcaption>{props.title}{times.length === 0 && " — no data yet"}</figcaption>
      <div ref={container} role="img" aria-label={`${props.title}: ${describeLast(times, series, unit)}`} />
    </figure>
  );
}

function describeLast(times: number[], series: ChartSeries[], unit: string): string {
  if (times.length === 0) return "no data yet";
  return series.map((entry) => `${entry.label} latest ${entry.values.at(-1)?.toFixed(2) ?? "—"} ${unit}`).join(", ");
}

/** A small inline chart for a table cell (plain SVG: one per row, no chart instance each). */
export function Sparkline(props: { values: number[]; label: string }) {
  const { values } = props;
  const width = 100;
  const height = 24;
  const max = Math.max(...values, 0);
  const points = values.map((value, index) => `${values.length === 1 ? 0 : (index / (values.length - 1)) * width},${height - 2 - (max === 0 ? 0 : (value / max) * (height - 4))}`).join(" ");
  return (
    <svg class="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={props.label}>
      {values.length > 0 && <polyline points={points} fill="none" stroke="currentColor" stroke-width="1.5" />}
    </svg>
  );
}
