// W1/W2 KPI frames: a socket on a fleet's custom-kpis and the latest value of each robot's
// KPIs (pose, battery, activity for the simulator; any custom KPI in general).
import { LiveSocket, type SocketStatus } from "../net/socket.js";
import { mintSocketToken, socketProtocols, socketURL } from "../net/token.js";
import { Backoff } from "../net/backoff.js";

export interface KPIUpdate {
  basicData: { id: string; name: string };
  updateTime: string;
  metric: { name: string; dataType: string; value: unknown };
}

export interface RobotKPIs {
  id: string;
  name: string;
  /** When the newest update of this robot was made (ms since the epoch). */
  updated: number;
  values: Map<string, unknown>;
}

export interface Pose2D {
  x: number;
  y: number;
  yaw: number;
}

/** Folds frames into the latest values per robot. */
export class KPIState {
  readonly robots = new Map<string, RobotKPIs>();

  apply(frame: { updates?: KPIUpdate[] }): void {
    for (const u of frame.updates ?? []) {
      const id = u.basicData?.id;
      if (!id) continue;
      let r = this.robots.get(id);
      if (!r) {
        r = { id, name: u.basicData.name || id, updated: 0, values: new Map() };
        this.robots.set(id, r);
      }
      r.name = u.basicData.name || r.name;
      const t = Date.parse(u.updateTime);
      r.updated = Math.max(r.updated, Number.isFinite(t) ? t : Date.now());
      r.values.set(u.metric.name, u.metric.value);
    }
  }
}

/** A pose KPI's position and heading; null when the value is no pose. */
export function poseOf(v: unknown): Pose2D | null {
  const p = v as { position?: { x?: number; y?: number }; orientation?: { x?: number; y?: number; z?: number; w?: number } };
  if (!p?.position) return null;
  const o = p.orientation ?? {};
  const [x, y, z, w] = [o.x ?? 0, o.y ?? 0, o.z ?? 0, o.w ?? 1];
  return { x: p.position.x ?? 0, y: p.position.y ?? 0, yaw: Math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)) };
}

/** Opens W1 (cloud) or W2 (local, fleet "local-fleet"); forever: retry even after 1003/1007/1009. */
export function openKPIs(
  fleetId: string,
  onFrame: (f: { updates?: KPIUpdate[] }) => void,
  onStatus: (s: SocketStatus) => void,
  forever = false,
): LiveSocket {
  const path = `/apigateway/v2/fleets/${encodeURIComponent(fleetId)}/custom-kpis`;
  const s = new LiveSocket({
    token: () => mintSocketToken(),
    url: socketURL(path, {}),
    protocols: socketProtocols,
    staleAfterMs: 5000,
    forever,
    backoff: new Backoff({ baseMs: 1000, maxMs: 15_000, floorMs: 500, healthyAfterMs: 10_000 }),
    onStatus,
    onMessage: (d) => {
      if (typeof d !== "string") return;
      try {
        onFrame(JSON.parse(d) as { updates?: KPIUpdate[] });
      } catch {
        // A frame we cannot read is skipped; the next one carries fresh values.
      }
    },
  });
  s.start();
  return s;
}
