// Goals on the operate screen's map: a click sends the robot to that point, a shift-click adds
// a waypoint after the goals it has (docs/api.md, "Goals"). A goal is held under the same
// lease as driving, so the map sends one only while this page holds control (the teleop
// widget's); the goal goes by the REST upload (endpoint 9) to the robot's goal stream, and the
// teleop widget keeps the lease alive with zeros while the robot drives itself (the
// "fleetgate:goal" event says when). The robot's nav/status says how it gets on: the map
// draws the goal, the waypoints and the path left, and a line says "driving to goal, 4.2 m
// left", "goal reached" or "goal cancelled".
import { decode } from "../decode/decoder.js";
import type { Payload } from "../decode/catalog.js";
import { goalEvent, type GoalEventDetail } from "../teleop/goalevent.js";
import type { MapView } from "./mapview.js";
import { listStreams, liveFeed, refOf, type Descriptor, type StreamRef } from "./stream.js";

const poseStamped = "Platform.Messages.geometry_msgs.PoseStamped";
const stringType = "Platform.Messages.std_msgs.String";

/** nav/status's document. */
export interface NavStatus {
  state: string; // idle, driving, reached, cancelled, failed
  text: string;
  why?: string;
  goal?: { x: number; y: number };
  waypoints?: { x: number; y: number }[];
  remaining: number;
  path?: { x: number; y: number }[];
}


/** nav/status from a decoded String payload; null for anything else. */
export function navStatusOf(p: Payload): NavStatus | null {
  if (p.dataType !== stringType) return null;
  try {
    const v = JSON.parse(p.message.data) as Partial<NavStatus>;
    return typeof v.state === "string" && typeof v.text === "string" ? { remaining: 0, ...v, state: v.state, text: v.text } : null;
  } catch {
    return null;
  }
}

/** The robot's goal streams: the goal (nav/goal, or the first PoseStamped input), the waypoint, the status. */
export function goalStreams(robotId: string, ds: Descriptor[]): { goal?: StreamRef; waypoint?: StreamRef; status?: StreamRef } {
  const inputs = ds.filter((d) => d.direction === "input" && d.streamType === poseStamped);
  const goal = inputs.find((d) => d.streamName === "goal") ?? inputs.find((d) => d.streamName !== "waypoint");
  const waypoint = inputs.find((d) => d.streamName === "waypoint" && d.componentName === goal?.componentName);
  const status = ds.find((d) => d.direction === "output" && d.streamType === stringType && d.streamName === "status" && d.componentName === goal?.componentName);
  return {
    ...(goal ? { goal: refOf(robotId, goal) } : {}),
    ...(waypoint ? { waypoint: refOf(robotId, waypoint) } : {}),
    ...(status ? { status: refOf(robotId, status) } : {}),
  };
}

/** The goal document an upload sends: a PoseStamped in the map frame, as protojson. */
export function goalDocument(x: number, y: number): unknown {
  return { header: { frameId: "map" }, pose: { position: { x, y, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } } };
}

/** Whether this page holds control of robotId (its teleop widget drives). */
function holdsControl(robotId: string): boolean {
  for (const t of document.querySelectorAll<HTMLElement>('[data-widget="teleop"]')) {
    if (t.dataset.robotId === robotId && t.dataset.control === "held") return true;
  }
  return false;
}

function tell(robotId: string, active: boolean): void {
  window.dispatchEvent(new CustomEvent<GoalEventDetail>(goalEvent, { detail: { robotId, active } }));
}

async function upload(s: StreamRef, doc: unknown): Promise<void> {
  const r = await fetch(`/panel/api/robots/${encodeURIComponent(s.robotId)}/upload-stream`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ componentName: s.component, streamName: s.stream, source: s.source, dataType: s.type, streamJson: doc }),
  });
  if (r.ok) return;
  const problem = (await r.json().catch(() => ({}))) as { detail?: string; title?: string };
  throw new Error(problem.detail || problem.title || `HTTP ${r.status}`);
}

/**
 * Mounts goals on el's map for robotId, when the robot takes goals; say puts how the robot
 * gets on in the map's state line. Returns what stops it.
 */
export async function mountGoals(el: HTMLElement, map: MapView, robotId: string, say: (text: string) => void): Promise<() => void> {
  const streams = goalStreams(robotId, await listStreams(robotId).catch(() => []));
  const goal = streams.goal;
  if (!goal) return () => {};
  // The words go to the map's own state line (the operate screen sizes the map to leave it room).
  const show = (t: string): void => {
    el.dataset.goalText = t;
    say(t);
  };
  show("click: send a goal while you drive");
  map.canvas.title = "Click: send the robot here. Shift-click: add a waypoint. You must hold control.";
  el.dataset.goals = "1";
  map.canvas.classList.add("map-goals");

  const onClick = (ev: MouseEvent): void => {
    if (!holdsControl(robotId)) {
      show("Take control first: a goal is sent only by whoever drives the robot.");
      return;
    }
    const r = map.canvas.getBoundingClientRect();
    const p = map.toWorld(((ev.clientX - r.left) * map.canvas.width) / r.width, ((ev.clientY - r.top) * map.canvas.height) / r.height);
    const target = ev.shiftKey && streams.waypoint ? streams.waypoint : goal;
    tell(robotId, true); // the lease's keepalive starts now: the deadman counts from the goal
    upload(target, goalDocument(p.x, p.y)).then(
      () => {
        el.dataset.goalsSent = String(Number(el.dataset.goalsSent ?? 0) + 1);
        show(`Sent: ${target === goal ? "goal" : "waypoint"} at (${p.x.toFixed(1)}, ${p.y.toFixed(1)}).`);
      },
      (e: Error) => {
        tell(robotId, el.dataset.goalState === "driving");
        show(`The goal was refused: ${e.message}`);
      },
    );
  };
  map.canvas.addEventListener("click", onClick);

  let sock: { stop(): void } | null = null;
  if (streams.status) {
    sock = liveFeed().open(streams.status, {
      onStatus: () => {},
      onMessage: (data) => {
        if (typeof data === "string") return;
        void decode(data).then((f) => {
          const st = f.payload && navStatusOf(f.payload);
          if (!st) return;
          const driving = st.state === "driving";
          map.setNav(driving ? { ...(st.goal ? { goal: st.goal } : {}), waypoints: st.waypoints ?? [], path: st.path ?? [] } : null);
          map.draw();
          el.dataset.goalState = st.state;
          el.dataset.goalRemaining = String(st.remaining);
          if (st.state !== "idle") show(st.text);
          tell(robotId, driving);
        });
      },
    });
  }
  return () => {
    map.canvas.removeEventListener("click", onClick);
    sock?.stop();
  };
}
