// Metric charts: the metrics page polls CPU, RAM and battery through the panel's REST mirror
// and keeps a rolling history in the browser (the gateway keeps none), drawn with uPlot.
import uPlot from "uplot";
import { History, metricPercent } from "./history.js";

const series = [
  { id: 1, label: "CPU %", stroke: "#1769e0" },
  { id: 2, label: "RAM %", stroke: "#d9480f" },
  { id: 4, label: "Battery %", stroke: "#2b8a3e" },
] as const;

const everyMs = 2000;
const keep = 300; // ten minutes at one reading each 2 s

export function mountMetricCharts(el: HTMLElement): void {
  const robotId = el.dataset.robotId;
  if (!robotId) throw new Error("the page names no robot");
  const history = new History(series.length, keep);
  const width = Math.max(320, el.clientWidth || 800);
  const plot = new uPlot(
    {
      width,
      height: 240,
      scales: { y: { range: [0, 100] } },
      series: [
        { label: "Time", value: (_: uPlot, v: number | null) => (v == null ? "–" : clock(v)) },
        ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, spanGaps: true, value: (_: uPlot, v: number | null) => (v == null ? "–" : `${v.toFixed(0)} %`) })),
      ],
      axes: [
        // Whole seconds or minutes, as a clock shows them: never ":30.600".
        { space: 90, incrs: timeSteps, values: (_: uPlot, ticks: number[]) => ticks.map(clock) },
        { values: (_: uPlot, ticks: number[]) => ticks.map((t) => `${t} %`) },
      ],
    },
    history.data(),
    el,
  );
  let hovering = false;
  plot.over.addEventListener("pointerenter", () => (hovering = true));
  plot.over.addEventListener("pointerleave", () => (hovering = false));
  const tick = async (): Promise<void> => {
    if (!document.hidden) {
      const values = await Promise.all(series.map((s) => readMetric(robotId, s.id)));
      history.push(Date.now() / 1000, values);
      plot.setData(history.data());
      // The legend shows the newest values while the pointer is not over the chart.
      if (!hovering && history.length) plot.setLegend({ idx: history.length - 1 });
      el.dataset.points = String(history.length);
      el.dataset.state = values.some((v) => v !== null) ? "live" : "stale";
    }
    setTimeout(() => void tick(), everyMs);
  };
  void tick();
}

/** Tick steps of the time axis, in seconds: 5 s up to 30 min. */
export const timeSteps = [5, 10, 15, 30, 60, 120, 300, 600, 1800];

/** A time (seconds since the epoch) as the clock reads it, to the second. */
export function clock(t: number): string {
  return new Date(t * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
}

async function readMetric(robotId: string, id: number): Promise<number | null> {
  try {
    const r = await fetch(`/panel/api/robots/${encodeURIComponent(robotId)}/metric/${id}`, {
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    });
    if (!r.ok) return null;
    return metricPercent(await r.json());
  } catch {
    return null;
  }
}
