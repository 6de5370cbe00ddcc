// Finds the data-widget elements of a page and starts the widget each names. Each widget is
// its own chunk, loaded only by pages that show it: a page without widgets loads a few KB,
// not the protobuf runtime, three.js or uPlot. A widget reads its settings from the element's
// data-* attributes only, and reports its state back on the element (data-state), which
// styles and tests read. A widget that can be swapped out (the operate screen's large view)
// returns a function that stops it: its sockets, timers and GPU buffers. The stream widgets
// take a feed (stream.ts): the live socket unless a recording's player mounts them with its own.
import type { Feed } from "./stream.js";

type Stop = () => void;
type Mount = (el: HTMLElement, feed?: Feed) => Stop | void;

const widgets: Record<string, () => Promise<Mount>> = {
  camera: () =>
    import("./camera.js").then(
      (m) => (el: HTMLElement, feed?: Feed) => m.mountCamera(el, el.dataset.maxWidth ? { maxWidth: el.dataset.maxWidth } : {}, [], feed),
    ),
  "camera-form": () => import("./cameraform.js").then((m) => m.mountCameraForm),
  teleop: () => import("./teleop.js").then((m) => m.mountTeleop),
  "kpi-wall": () => import("./kpiwall.js").then((m) => m.mountKPIWall),
  "pose-map": () => import("./posemap.js").then((m) => m.mountPoseMap),
  laserscan: () => import("./laserscan.js").then((m) => m.mountLaserScan),
  pointcloud: () => import("./pointcloud.js").then((m) => m.mountPointCloud),
  "metric-charts": () => import("./charts.js").then((m) => m.mountMetricCharts),
  player: () => import("../playback/playback.js").then((m) => m.mountPlayer),
};

const stops = new WeakMap<HTMLElement, Stop>();

export function mountWidgets(root: ParentNode): void {
  for (const el of root.querySelectorAll<HTMLElement>("[data-widget]")) {
    mountWidget(el);
  }
}

/** Starts the widget el names; feed, when given, replaces its live socket. */
export function mountWidget(el: HTMLElement, feed?: Feed): void {
  const load = widgets[el.dataset.widget ?? ""];
  if (!load || el.dataset.mounted) return;
  el.dataset.mounted = "1";
  load()
    .then((mount) => {
      if (!el.isConnected) return; // swapped out while its chunk loaded
      el.textContent = "";
      const stop = mount(el, feed);
      if (stop) stops.set(el, stop);
    })
    .catch((e: unknown) => {
      el.dataset.state = "error";
      el.textContent = `This view failed to start: ${(e as Error).message}`;
    });
}

/**
 * select[data-view-switch=ID]: each option names a widget (data-view) and its stream; choosing
 * one stops the widget in element ID and starts the chosen one in a fresh element, in place
 * (no reload: a teleop socket elsewhere on the page keeps its control).
 */
export function startViewSwitch(root: ParentNode = document): void {
  for (const sel of root.querySelectorAll<HTMLSelectElement>("select[data-view-switch]")) {
    sel.addEventListener("change", () => {
      const old = document.getElementById(sel.dataset.viewSwitch ?? "");
      const opt = sel.selectedOptions[0];
      if (!old || !opt) return;
      stops.get(old)?.();
      const next = document.createElement("div");
      next.id = old.id;
      next.className = "widget";
      for (const a of ["robotId", "fleetId", "mode", "via"] as const) {
        const v = old.dataset[a];
        if (v !== undefined) next.dataset[a] = v;
      }
      // The options name their widget in data-view: a data-widget would be mounted itself.
      next.dataset.widget = opt.dataset.view ?? "";
      for (const a of ["component", "stream", "source", "type"] as const) {
        next.dataset[a] = opt.dataset[a] ?? "";
      }
      next.textContent = "Live view loads here.";
      old.replaceWith(next);
      mountWidget(next);
    });
  }
}
