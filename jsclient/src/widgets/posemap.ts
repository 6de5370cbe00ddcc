// The pose-map widget: the robot's OccupancyGrid (read once through REST, refreshed each
// minute) with this robot's pose live from W3 and every robot of its fleet from W1/W2.
import { decode } from "../decode/decoder.js";
import type { Payload } from "../decode/catalog.js";
import { KPIState, openKPIs, poseOf, type Pose2D } from "./kpi.js";
import { mountGoals } from "./goals.js";
import { gridFromJSON, gridOf, MapView } from "./mapview.js";
import { StatusLine } from "./status.js";
import { liveFeed, listStreams, readStream, refOf, streamOf, type Feed } from "./stream.js";

/** Loads the map of the first of these robots that has one. */
export async function loadFleetMap(robotIds: string[], map: MapView): Promise<void> {
  for (const id of robotIds) {
    const d = (await listStreams(id).catch(() => [])).find((s) => s.direction === "output" && s.streamType.endsWith(".OccupancyGrid"));
    if (!d) continue;
    const g = gridFromJSON(await readStream(refOf(id, d)));
    if (g) {
      map.setGrid(g);
      return;
    }
  }
  throw new Error("no robot has a map");
}

export function poseOfPayload(p: Payload): Pose2D | null {
  switch (p.dataType) {
    case "Platform.Messages.geometry_msgs.PoseStamped":
      return poseOf(p.message.pose);
    case "Platform.Messages.geometry_msgs.Pose":
      return poseOf(p.message);
    case "Platform.Messages.nav_msgs.Odometry":
      return poseOf(p.message.pose?.pose);
  }
  return null;
}

/** Keeps a map canvas the size of its element (the operate screen and the kiosk size it by CSS). */
export function fitToElement(el: HTMLElement, map: MapView, reserve = 0): void {
  const fit = (): void => {
    const w = el.clientWidth - 16;
    const h = el.clientHeight - reserve;
    if (w > 0 && h > 100) map.resize(w, h);
  };
  new ResizeObserver(fit).observe(el);
  fit();
}

/**
 * Mounts the map on el. feed, a recording's player, replaces the live socket of the pose
 * stream; the map then comes from the recording too when it holds one (data-map-component and
 * data-map-stream name it), else from the robot as it is now.
 */
export function mountPoseMap(el: HTMLElement, feed?: Feed): () => void {
  // Without a pose stream, or without W3 (the cloud), or for the grid itself, every pose
  // comes from the KPI socket.
  const ref = el.dataset.stream ? streamOf(el) : null;
  const robotId = ref?.robotId ?? el.dataset.robotId ?? "";
  const kpiOnly = !feed && (!ref || el.dataset.mode === "snapshot" || ref.type.endsWith(".OccupancyGrid"));
  const stops: (() => void)[] = [];
  const trail = Boolean(el.dataset.trail);
  const status = new StatusLine(el);
  const map = new MapView(800, 500);
  el.append(map.canvas, status.el);
  if (el.closest(".operate")) {
    fitToElement(el, map, 40);
    // Goals are sent from the operate screen, live, where the page can hold control.
    if (!feed && robotId) {
      let stopGoals: (() => void) | null = null;
      let stopped = false;
      void mountGoals(el, map, robotId, (t) => status.figures(t)).then((stop) => (stopped ? stop() : (stopGoals = stop)));
      stops.push(() => {
        stopped = true;
        stopGoals?.();
      });
    }
  }
  const refresh = (): void => void loadFleetMap([robotId], map).catch((e: Error) => status.figures(e.message));
  const mapRef = feed && el.dataset.mapStream ? { ...streamOf(el), component: el.dataset.mapComponent ?? "", stream: el.dataset.mapStream, type: el.dataset.mapType ?? "" } : null;
  if (mapRef && feed) {
    stops.push(
      feed.open(mapRef, {
        onStatus: () => {},
        onMessage: (data) => {
          if (typeof data === "string") return;
          void decode(data, true).then((f) => {
            const g = f.payload && gridOf(f.payload);
            if (g) {
              map.setGrid(g);
              map.draw();
            }
          });
        },
      }).stop,
    );
  } else {
    refresh();
    const timer = setInterval(refresh, 60_000);
    stops.push(() => clearInterval(timer));
  }

  let frames = 0;
  if (ref && !kpiOnly) {
    const sock = (feed ?? liveFeed()).open(ref, {
      staleAfterMs: 3000,
      onStatus: (s) => status.socketStatus(s),
      onReset: () => map.clearTrails(),
      onMessage: (data) => {
        if (typeof data === "string") return;
        void decode(data).then((f) => {
          const pose = f.payload && poseOfPayload(f.payload);
          if (!pose) return;
          map.setPose(robotId, pose, "this robot");
          if (trail) map.addTrail(robotId, pose);
          map.draw();
          el.dataset.frames = String(++frames);
        });
      },
    });
    stops.push(() => sock.stop());
  }
  const fleet = feed ? undefined : el.dataset.fleetId; // a recording shows this robot alone
  if (kpiOnly) status.figures("poses from the fleet's KPI socket, once a second");
  if (fleet) {
    const state = new KPIState();
    const kpis = openKPIs(
      fleet,
      (f) => {
        state.apply(f);
        let robots = 0;
        for (const r of state.robots.values()) {
          if (r.id === robotId && !kpiOnly) continue; // W3 has it fresher
          const pose = poseOf(r.values.get("pose"));
          if (!pose) continue;
          const mine = r.id === robotId;
          map.setPose(r.id, pose, mine ? "this robot" : r.name, Date.now() - r.updated > 5000);
          if (mine && trail) map.addTrail(r.id, pose);
          robots++;
        }
        el.dataset.fleetPoses = String(robots);
        el.dataset.kpiFrames = String(Number(el.dataset.kpiFrames ?? 0) + 1);
        map.draw();
      },
      (s) => {
        if (kpiOnly) status.socketStatus(s);
      },
    );
    stops.push(() => kpis.stop());
  }
  return () => stops.forEach((stop) => stop());
}
