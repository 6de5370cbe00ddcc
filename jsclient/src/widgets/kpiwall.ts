// The kiosk's KPI wall: the fleet map above, then a tile per robot (name, activity, battery,
// age of the last update with a stale badge after 5 s), fed by W1/W2. It reconnects forever
// and goes fullscreen on the first click (browsers allow fullscreen only after a gesture).
import { KPIState, openKPIs, poseOf, type RobotKPIs } from "./kpi.js";
import { loadFleetMap } from "./posemap.js";
import { MapView } from "./mapview.js";
import { StatusLine } from "./status.js";

export const staleAfterMs = 5000;

export function mountKPIWall(el: HTMLElement): void {
  const fleetId = el.dataset.fleetId;
  if (!fleetId) throw new Error("the page names no fleet");
  const status = new StatusLine(el);
  const map = new MapView(960, 420);
  const tiles = document.createElement("div");
  tiles.className = "kpi-tiles";
  el.append(map.canvas, tiles, status.el);

  const state = new KPIState();
  const tileOf = new Map<string, HTMLElement>();
  let mapLoading = false;
  let frames = 0;

  const render = (): void => {
    const now = Date.now();
    for (const r of [...state.robots.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      let t = tileOf.get(r.id);
      if (!t) {
        t = document.createElement("div");
        t.className = "kpi-tile card";
        t.dataset.robotId = r.id;
        tileOf.set(r.id, t);
        tiles.append(t);
      }
      fillTile(t, r, now);
      const pose = poseOf(r.values.get("pose"));
      if (pose) map.setPose(r.id, pose, r.name, now - r.updated > staleAfterMs);
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

  const goFullscreen = (): void => {
    document.removeEventListener("click", goFullscreen);
    if (!document.fullscreenElement) void document.documentElement.requestFullscreen?.().catch(() => undefined);
  };
  document.addEventListener("click", goFullscreen);
}

/** What a tile says about a robot at a time: the words, and whether it is stale. */
export function tileFacts(r: RobotKPIs, now: number): { stale: boolean; activity: string; battery: string; age: string } {
  const age = Math.max(0, (now - r.updated) / 1000);
  const battery = r.values.get("battery");
  const activity = r.values.get("activity");
  return {
    stale: now - r.updated > staleAfterMs,
    activity: typeof activity === "string" ? activity : "–",
    battery: typeof battery === "number" ? `${battery.toFixed(0)} %` : "–",
    age: `${age.toFixed(1)} s ago`,
  };
}

function fillTile(t: HTMLElement, r: RobotKPIs, now: number): void {
  const f = tileFacts(r, now);
  t.classList.toggle("stale", f.stale);
  t.replaceChildren(
    el("h3", r.name, f.stale ? el("span", "stale", undefined, "badge") : undefined),
    el("p", `Activity: ${f.activity}`),
    el("p", `Battery: ${f.battery}`),
    el("p", `Updated ${f.age}`, undefined, "muted age"),
  );
}

function el(tag: string, text: string, child?: Node, cls?: string): HTMLElement {
  const e = document.createElement(tag);
  e.textContent = text;
  if (cls) e.className = cls;
  if (child) e.append(" ", child);
  return e;
}
