// Finds the data-widget elements of a page and starts the widget each names. Each widget is
// its own chunk, loaded only by pages that show it: a page without widgets loads a few KB,
// not the protobuf runtime, three.js or uPlot. A widget reads its settings from the element's
// data-* attributes only, and reports its state back on the element (data-state), which
// styles and tests read.

type Mount = (el: HTMLElement) => void;

const widgets: Record<string, () => Promise<Mount>> = {
  camera: () => import("./camera.js").then((m) => (el: HTMLElement) => void m.mountCamera(el)),
  "camera-form": () => import("./cameraform.js").then((m) => m.mountCameraForm),
  teleop: () => import("./teleop.js").then((m) => m.mountTeleop),
  "kpi-wall": () => import("./kpiwall.js").then((m) => m.mountKPIWall),
  "pose-map": () => import("./posemap.js").then((m) => m.mountPoseMap),
  laserscan: () => import("./laserscan.js").then((m) => m.mountLaserScan),
  pointcloud: () => import("./pointcloud.js").then((m) => m.mountPointCloud),
  "metric-charts": () => import("./charts.js").then((m) => m.mountMetricCharts),
};

export function mountWidgets(root: ParentNode): void {
  for (const el of root.querySelectorAll<HTMLElement>("[data-widget]")) {
    const load = widgets[el.dataset.widget ?? ""];
    if (!load || el.dataset.mounted) continue;
    el.dataset.mounted = "1";
    load()
      .then((mount) => {
        el.textContent = "";
        mount(el);
      })
      .catch((e: unknown) => {
        el.dataset.state = "error";
        el.textContent = `This view failed to start: ${(e as Error).message}`;
      });
  }
}
