/** A uPlot time chart (bundled, no CDN), sized to its container, colours from the page's theme. */
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import { chartWindow } from "../series.ts";

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  colorVar: string;
}

/** The chart's width: its container's, and at least this (a phone's column is about 350 px). */
const chartWidthMin = 260;

/**
 * The x axis is the last 15 minutes up to now (`chartWindow`), recomputed at each redraw;
 * the container carries the range uPlot drew (`data-x-min`, `data-x-max`, seconds) for tests.
 */
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
    const width = () => Math.max(element.clientWidth, chartWidthMin);
    plot.current = new uPlot(
      {
        width: width(),
        height,
        series: [{}, ...series.map((entry) => ({ label: entry.label, stroke: color(entry.colorVar), width: 2, value: (_: uPlot, v: number | null) => (v === null ? "—" : `${v.toFixed(2)} ${unit}`) }))],
        axes: [axis, { ...axis, size: 60 }],
        scales: { x: { time: true, range: () => chartWindow(Date.now()) }, y: { range: (_u, min, max) => [0, Math.max(max ?? 0, min ?? 0, 1)] } },
        hooks: {
          setScale: [(u, key) => {
            if (key !== "x") return;
            element.dataset.xMin = String(u.scales.x!.min);
            element.dataset.xMax = String(u.scales.x!.max);
          }],
        },
      },
      [times, ...series.map((entry) => entry.values)],
      element,
    );
    const resize = () => plot.current?.setSize({ width: width(), height });
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
