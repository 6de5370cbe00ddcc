// The kiosk's KPI wall: a dark fleet map filling its part of the screen, every robot's pose
// live from W1/W2 (red when its tile has an alert, grey and "(stale)" when its pose is old),
// and the ageing of the server-rendered tiles (#kiosk-tiles, refreshed every two seconds with
// the alerts the gateway derives): a tile whose data is older than staleAfterMs gets a
// "stale" badge, also while the gateway cannot be reached and the tiles stop refreshing.
// It reconnects forever and goes fullscreen on the first click (browsers allow fullscreen
// only after a gesture).
import { KPIState, openKPIs, poseOf } from "./kpi.js";
import { fitToElement, loadFleetMap } from "./posemap.js";
import { MapView } from "./mapview.js";
import { StatusLine } from "./status.js";

export const staleAfterMs = 5000;

export function mountKPIWall(el: HTMLElement): void {
  const fleetId = el.dataset.fleetId;
  if (!fleetId) throw new Error("the page names no fleet");
  const status = new StatusLine(el);
  // Dark on the kiosk wall; the panel's fleet view (data-theme="light") matches its page.
  const map = new MapView(960, 540, el.dataset.theme !== "light");
  el.append(map.canvas, status.el);
  fitToElement(el, map, 48);

  const state = new KPIState();
  let mapLoading = false;
  let frames = 0;

  const tiles = (): HTMLElement | null => document.querySelector<HTMLElement>("[data-kiosk-tiles]");
  const render = (): void => {
    const now = Date.now();
    const region = tiles();
    const loaded = Number(region?.dataset.loaded ?? performance.timeOrigin);
    const alerting = new Set<string>();
    for (const t of region?.querySelectorAll<HTMLElement>(".kpi-tile") ?? []) {
      const { stale } = tileAge(t.dataset.ageMs, loaded, now);
      t.classList.toggle("stale", stale);
      t.querySelector<HTMLElement>(".stale-badge")?.toggleAttribute("hidden", !stale);
      if (t.classList.contains("has-alert") && t.dataset.robotId) alerting.add(t.dataset.robotId);
    }
    map.labelPx = Math.max(16, Math.round(map.canvas.width / 45));
    for (const r of state.robots.values()) {
      const pose = poseOf(r.values.get("pose"));
      if (pose) map.setPose(r.id, pose, r.name, now - r.updated > staleAfterMs, alerting.has(r.id));
    }
    map.draw();
  };

  openKPIs(
    fleetId,
    (f) => {
      state.apply(f);
      el.dataset.frames = String(++frames);
      if (!mapLoading && state.robots.size) {
        mapLoading = true;
        void loadFleetMap([...state.robots.keys()], map).catch(() => (mapLoading = false));
      }
      render();
    },
    (s) => status.socketStatus(s),
    true, // a wall on a wall display has nobody to press reload
  );
  setInterval(render, 1000);

  if (!document.body.classList.contains("kiosk")) return;
  const goFullscreen = (): void => {
    document.removeEventListener("click", goFullscreen);
    if (!document.fullscreenElement) void document.documentElement.requestFullscreen?.().catch(() => undefined);
  };
  document.addEventListener("click", goFullscreen);
}

/**
 * How old a tile's data is now: its age when the server rendered it (data-age-ms; none when
 * the robot sent nothing), plus the time since the tiles were loaded.
 */
export function tileAge(ageAtRender: string | undefined, loadedAt: number, now: number): { stale: boolean; ageMs: number | null } {
  if (ageAtRender === undefined || ageAtRender === "") return { stale: false, ageMs: null };
  const ageMs = Math.max(0, Number(ageAtRender)) + Math.max(0, now - loadedAt);
  return { stale: ageMs > staleAfterMs, ageMs };
}
