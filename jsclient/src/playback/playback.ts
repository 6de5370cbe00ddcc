// The player on a recording's page (/robots/{id}/recordings/{rid}): the robot's camera, map,
// scan and point cloud widgets played from the MCAP file, with a timeline, play and pause,
// speed, seek, the event log's entries of the robot and time as markers, and a link to the
// moment shown. The file is read in the page through range requests on a signed download
// (mcapsource.ts); the page's own query ?t= (RFC 3339, or seconds from the start) opens it
// at a time.
import { mountWidget } from "../widgets/mount.js";
import { McapSource, RangeFile, type RecordedStream } from "./mcapsource.js";
import { pageClock, speeds } from "./playhead.js";
import { Player } from "./player.js";
import { RecordingFeed } from "./feed.js";

interface EventEntry {
  id: number;
  time: string;
  message: string;
  type: string;
  severity: string;
  author: string;
}

type Kind = "camera" | "laserscan" | "pointcloud" | "pose-map";

/** The widget that shows a recorded stream's type; null for a type no widget draws. */
export function widgetFor(type: string): Kind | null {
  const t = type.slice(type.lastIndexOf(".") + 1);
  switch (t) {
    case "CompressedImage":
    case "CompressedVideo":
    case "Image":
      return "camera";
    case "LaserScan":
      return "laserscan";
    case "PointCloud2":
      return "pointcloud";
    case "PoseStamped":
    case "Pose":
    case "Odometry":
      return "pose-map";
  }
  return null;
}

/**
 * The time ?t= names: an RFC 3339 time, or seconds from the recording's start. null when it
 * is neither (the player then starts at the beginning and says so).
 */
export function startAt(t: string, startMs: number): number | null {
  if (!t) return startMs;
  if (/^\d+(\.\d+)?$/.test(t)) return startMs + Number(t) * 1000;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? null : ms;
}

/** A position as the player shows it: minutes and seconds from the start, to a tenth. */
export function offsetWords(ms: number): string {
  const tenths = Math.floor(Math.max(0, ms) / 100);
  const m = Math.floor(tenths / 600);
  return `${m}:${((tenths - m * 600) / 10).toFixed(1).padStart(4, "0")}`;
}

async function signedLink(robotId: string, recordingId: string): Promise<string> {
  const r = await fetch(`/panel/api/robots/${encodeURIComponent(robotId)}/resource/${encodeURIComponent(recordingId)}/download`, {
    credentials: "same-origin",
    headers: { Accept: "application/json" },
  });
  if (!r.ok) {
    const p = (await r.json().catch(() => ({}))) as { detail?: string };
    throw new Error(p.detail ?? `the recording cannot be downloaded (HTTP ${r.status})`);
  }
  // The link is absolute with the gateway's public URL; the page reads it on its own origin.
  const u = new URL(((await r.json()) as { url: string }).url, location.href);
  return u.pathname + u.search;
}

async function eventsOf(robotId: string, fromMs: number, toMs: number): Promise<EventEntry[]> {
  const q = new URLSearchParams({
    robotId,
    from: new Date(Math.floor(fromMs)).toISOString(),
    to: new Date(Math.ceil(toMs) + 1).toISOString(),
    limit: "1000",
  });
  const r = await fetch(`/panel/api/events?${q}`, { credentials: "same-origin", headers: { Accept: "application/json" } });
  if (!r.ok) throw new Error(`the event log could not be read (HTTP ${r.status})`);
  return ((await r.json()) as { events?: EventEntry[] }).events ?? [];
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}

/** The widget elements for the recorded streams: every camera, scan and cloud, one map. */
function viewsOf(robotId: string, streams: RecordedStream[]): { views: HTMLElement[]; skipped: RecordedStream[] } {
  const views: HTMLElement[] = [];
  const skipped: RecordedStream[] = [];
  const grid = streams.find((s) => s.type.endsWith(".OccupancyGrid"));
  let map = false;
  for (const s of streams) {
    const kind = widgetFor(s.type);
    if (!kind || (kind === "pose-map" && map)) {
      if (s !== grid) skipped.push(s);
      continue;
    }
    map ||= kind === "pose-map";
    const w = el("div", { className: "widget" });
    Object.assign(w.dataset, { widget: kind, robotId, component: s.component, stream: s.stream, source: s.source, type: s.type, via: "recording" });
    if (kind === "pose-map") {
      w.dataset.trail = "1";
      if (grid) Object.assign(w.dataset, { mapComponent: grid.component, mapStream: grid.stream, mapType: grid.type });
    }
    const fig = el("figure", { className: `player-view player-${kind}` }, el("figcaption", {}, s.topic), w);
    views.push(fig);
  }
  return { views, skipped };
}

export function mountPlayer(root: HTMLElement): () => void {
  const robotId = root.dataset.robotId ?? "";
  const recordingId = root.dataset.recordingId ?? "";
  const state = el("p", { className: "widget-status" });
  state.setAttribute("aria-live", "polite");
  const say = (words: string, s: string): void => {
    state.textContent = words;
    root.dataset.state = s;
  };
  root.append(state);
  say("Opening the recording…", "connecting");
  let stop = (): void => {};
  void open().catch((e: Error) => say(`The recording cannot be played: ${e.message}`, "error"));
  return () => stop();

  async function open(): Promise<void> {
    const file = new RangeFile(() => signedLink(robotId, recordingId));
    const src = await McapSource.open(file);
    const feed = new RecordingFeed(src.streams, () => player.position());

    const play = el("button", { type: "button", className: "player-play", textContent: "Play" });
    const speed = el("select", { className: "player-speed" });
    speed.setAttribute("aria-label", "Speed");
    for (const x of speeds) speed.append(new Option(`${x}x`, String(x), x === 1, x === 1));
    const time = el("output", { className: "player-time" });
    const share = el("button", { type: "button", className: "player-share", textContent: "Share this moment" });
    const link = el("input", { className: "player-link", readOnly: true, hidden: true });
    link.setAttribute("aria-label", "Link to this moment");
    const range = el("input", { type: "range", className: "player-range", min: "0", max: String(Math.max(1, Math.round(src.endMs - src.startMs))), step: "1", value: "0" });
    range.setAttribute("aria-label", "Position in the recording");
    const markers = el("div", { className: "player-markers" });
    const timeline = el("div", { className: "player-timeline" }, range, markers);
    const controls = el("div", { className: "row player-controls" }, play, speed, time, share, link);
    const { views, skipped } = viewsOf(robotId, src.streams);
    const grid = el("div", { className: "player-views" }, ...views);
    root.append(controls, timeline, grid);
    if (skipped.length) root.append(el("p", { className: "muted" }, `Recorded, not shown here: ${skipped.map((s) => s.topic).join(", ")}.`));

    let dragging = false;
    const player = new Player(src, pageClock, (m) => feed.deliver(m), {
      onReset: () => feed.reset(),
      onPosition: (pos, playing) => {
        root.dataset.position = String(pos);
        root.dataset.playing = playing ? "1" : "";
        play.textContent = playing ? "Pause" : "Play";
        time.textContent = `${offsetWords(pos - src.startMs)} / ${offsetWords(src.endMs - src.startMs)} · ${new Date(pos).toISOString().slice(11, 23)} UTC`;
        if (!dragging) range.value = String(Math.round(pos - src.startMs));
      },
      onError: (e) => say(`Reading the recording failed: ${e.message}`, "error"),
    });
    stop = () => player.dispose();

    play.addEventListener("click", () => (player.head.playing ? player.pause() : player.play()));
    speed.addEventListener("change", () => player.setSpeed(Number(speed.value)));
    range.addEventListener("input", () => {
      dragging = true;
      void player.seek(src.startMs + Number(range.value)).finally(() => (dragging = false));
    });
    share.addEventListener("click", () => {
      const u = new URL(`/robots/${encodeURIComponent(robotId)}/recordings/${encodeURIComponent(recordingId)}`, location.href);
      u.searchParams.set("t", new Date(player.position()).toISOString());
      link.value = u.href;
      link.hidden = false;
      link.select();
      void navigator.clipboard?.writeText(u.href).catch(() => undefined);
    });

    for (const v of views) mountWidget(v.querySelector<HTMLElement>("[data-widget]")!, feed);
    const t = root.dataset.t ?? "";
    const at = startAt(t, src.startMs);
    await player.seek(at ?? src.startMs);
    const span = `${offsetWords(src.endMs - src.startMs)} of ${src.streams.length} streams`;
    say(at === null ? `t=${t} is not a time (RFC 3339, or seconds from the start): playing from the start. ${span}.` : `Ready: ${span}.`, "ready");

    const entries = await eventsOf(robotId, src.startMs, src.endMs).catch((e: Error) => {
      say(`${state.textContent} ${e.message}`, "ready");
      return [];
    });
    const width = Math.max(1, src.endMs - src.startMs);
    for (const e of entries) {
      const ms = Date.parse(e.time);
      if (ms < src.startMs || ms > src.endMs) continue;
      const words = `${e.type}, ${new Date(ms).toISOString().slice(11, 23)} UTC, ${e.author}: ${e.message}`;
      const b = el("button", { type: "button", className: `player-marker severity-${e.severity}`, title: words });
      b.setAttribute("aria-label", `Go to the event: ${words}`);
      b.dataset.time = String(ms);
      b.style.left = `${((ms - src.startMs) / width) * 100}%`;
      b.addEventListener("click", () => void player.seek(ms));
      markers.append(b);
    }
    root.dataset.markers = String(markers.childElementCount);
  }
}
