// The camera widget: a canvas fed by W3 (CompressedImage through createImageBitmap, raw
// Image converted in place), with frame rate and age of the last frame. It keeps one slot
// for the newest frame: while a frame decodes or draws, newer ones replace the waiting one,
// so a slow tab drops frames rather than falling behind. On the cloud panel (no W3) it shows
// a snapshot through the REST stream read once a second, and says so.
import { decode } from "../decode/decoder.js";
import { payloadFromJSON } from "../decode/frame.js";
import type { Payload } from "../decode/catalog.js";
import { rawToRGBA } from "../decode/pixels.js";
import { StatusLine } from "./status.js";
import { liveFeed, readStream, streamOf, type Feed, type StreamRef } from "./stream.js";

/**
 * Mounts a camera canvas on el. extra adds W3 query parameters (a camera opened by address
 * passes its url here, never through the page), protocols subprotocols (its credentials,
 * never in the URL). feed replaces the live socket (a recording's player). The returned
 * function stops the feed.
 */
export function mountCamera(el: HTMLElement, extra: Record<string, string> = {}, protocols: string[] = [], feed?: Feed): () => void {
  const ref = streamOf(el);
  const canvas = document.createElement("canvas");
  canvas.className = "camera";
  canvas.width = 640;
  canvas.height = 480;
  const status = new StatusLine(el);
  el.append(canvas, status.el);
  if (el.dataset.mode === "snapshot" && !feed) {
    snapshots(el, ref, canvas, status);
    return () => {};
  }
  return live(el, ref, canvas, status, extra, feed ?? liveFeed(protocols));
}

class FrameStats {
  private times: number[] = [];
  lastPublished = 0;
  lastReceived = 0;
  count = 0;

  /** now is the clock ages are measured on: the wall clock, or a recording's playhead. */
  constructor(private readonly now: () => number = () => Date.now()) {}

  frame(publishedMs: number): void {
    const now = this.now();
    this.times.push(now);
    while (this.times.length && (now - this.times[0]! > 2000 || now < this.times[0]!)) this.times.shift();
    this.lastPublished = publishedMs;
    this.lastReceived = now;
    this.count++;
  }

  /** When the last frame was taken (ms since the epoch): the robot's clock unless it is ahead of ours. */
  shownAt(): number {
    return this.lastPublished && this.lastPublished <= this.now() ? this.lastPublished : this.lastReceived;
  }

  text(): string {
    if (!this.count) return "no frame yet";
    const fps = this.times.length > 1 ? (this.times.length - 1) / ((this.times.at(-1)! - this.times[0]!) / 1000) : 0;
    // The age from the robot's own clock, unless it is ahead of ours (clocks disagree).
    return `${fps.toFixed(1)} fps · last frame ${(Math.max(0, this.now() - this.shownAt()) / 1000).toFixed(1)} s ago`;
  }
}

/** A frame's time as the player shows it: UTC, to the millisecond. */
export function frameTimeWords(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23) + " UTC";
}

async function draw(canvas: HTMLCanvasElement, p: Payload): Promise<boolean> {
  const ctx = canvas.getContext("2d");
  if (!ctx) return false;
  if (p.dataType === "Platform.Messages.sensor_msgs.CompressedImage") {
    const m = p.message;
    const type = m.format.toLowerCase().includes("png") ? "image/png" : "image/jpeg";
    const bmp = await createImageBitmap(new Blob([m.data as BlobPart], { type }));
    if (canvas.width !== bmp.width || canvas.height !== bmp.height) {
      canvas.width = bmp.width;
      canvas.height = bmp.height;
    }
    ctx.drawImage(bmp, 0, 0);
    bmp.close();
    return true;
  }
  if (p.dataType === "Platform.Messages.sensor_msgs.Image") {
    const m = p.message;
    const rgba = rawToRGBA(m.encoding, m.width, m.height, m.step, m.data, m.isBigendian !== 0);
    if (canvas.width !== m.width || canvas.height !== m.height) {
      canvas.width = m.width;
      canvas.height = m.height;
    }
    ctx.putImageData(new ImageData(rgba, m.width, m.height), 0, 0);
    return true;
  }
  return false;
}

function live(
  el: HTMLElement,
  ref: StreamRef,
  canvas: HTMLCanvasElement,
  status: StatusLine,
  extra: Record<string, string>,
  feed: Feed,
): () => void {
  const stats = new FrameStats(() => feed.now());
  let waiting: ArrayBuffer | null = null;
  let busy = false;
  let dropped = 0;

  const raw = ref.type.endsWith(".Image"); // raw pixels: megabytes once inflated
  const figures = (): void => {
    // A recording's frame says when it was taken: the time a shared moment or a marker names.
    const at = feed.recorded && stats.lastPublished ? `frame of ${frameTimeWords(stats.lastPublished)} · ` : "";
    status.figures(at + stats.text() + (dropped ? ` · ${dropped} dropped` : ""));
  };
  const pump = async (): Promise<void> => {
    busy = true;
    while (waiting) {
      const buf = waiting;
      waiting = null;
      try {
        const f = await decode(buf, raw);
        if (f.payload && (await draw(canvas, f.payload))) {
          stats.frame(f.publishedMs);
          el.dataset.frames = String(stats.count);
          el.dataset.frameTime = String(f.publishedMs);
          // When the picture on screen was taken: the teleop widget reports its age to the
          // robot's gateway, whose governor slows the robot when it lags.
          el.dataset.pictureAt = String(stats.shownAt());
          if (stats.count === 1 || feed.recorded) figures();
        }
      } catch (e) {
        status.figures(`bad frame: ${(e as Error).message}`);
      }
    }
    busy = false;
  };

  const sock = feed.open(
    ref,
    {
      staleAfterMs: 3000,
      onStatus: (s) => status.socketStatus(s),
      onMessage: (data) => {
        if (typeof data === "string") return;
        if (waiting) dropped++;
        waiting = data; // newest wins
        if (!busy) void pump();
      },
    },
    extra,
  );
  const timer = setInterval(figures, 500);
  return () => {
    clearInterval(timer);
    sock.stop();
  };
}

function snapshots(el: HTMLElement, ref: StreamRef, canvas: HTMLCanvasElement, status: StatusLine): void {
  const stats = new FrameStats();
  const label = "snapshot once a second (the cloud has no live stream)";
  el.dataset.state = "connecting";
  const tick = async (): Promise<void> => {
    if (!document.hidden) {
      try {
        const p = payloadFromJSON(ref.type, await readStream(ref));
        if (p && (await draw(canvas, p))) {
          stats.frame(0);
          el.dataset.frames = String(stats.count);
          el.dataset.state = "live";
        }
        status.figures(`${label} · ${stats.text()}`);
      } catch (e) {
        el.dataset.state = "stale";
        status.figures(`${label} · ${(e as Error).message}`);
      }
    }
    setTimeout(tick, 1000);
  };
  status.figures(label);
  void tick();
}
