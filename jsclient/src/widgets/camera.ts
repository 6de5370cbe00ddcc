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
import { openLive, readStream, streamOf, type StreamRef } from "./stream.js";

/**
 * Mounts a camera canvas on el. extra adds W3 query parameters (a camera opened by address
 * passes its url here, never through the page), protocols subprotocols (its credentials,
 * never in the URL). The returned function stops the live socket.
 */
export function mountCamera(el: HTMLElement, extra: Record<string, string> = {}, protocols: string[] = []): () => void {
  const ref = streamOf(el);
  const canvas = document.createElement("canvas");
  canvas.className = "camera";
  canvas.width = 640;
  canvas.height = 480;
  const status = new StatusLine(el);
  el.append(canvas, status.el);
  if (el.dataset.mode === "snapshot") {
    snapshots(el, ref, canvas, status);
    return () => {};
  }
  return live(el, ref, canvas, status, extra, protocols);
}

class FrameStats {
  private times: number[] = [];
  lastPublished = 0;
  lastReceived = 0;
  count = 0;

  frame(publishedMs: number): void {
    const now = performance.now();
    this.times.push(now);
    while (this.times.length && now - this.times[0]! > 2000) this.times.shift();
    this.lastPublished = publishedMs;
    this.lastReceived = Date.now();
    this.count++;
  }

  /** When the last frame was taken (ms since the epoch): the robot's clock unless it is ahead of ours. */
  shownAt(): number {
    return this.lastPublished && this.lastPublished <= Date.now() ? this.lastPublished : this.lastReceived;
  }

  text(): string {
    if (!this.count) return "no frame yet";
    const fps = this.times.length > 1 ? (this.times.length - 1) / ((this.times.at(-1)! - this.times[0]!) / 1000) : 0;
    // The age from the robot's own clock, unless it is ahead of ours (clocks disagree).
    const from = this.shownAt();
    return `${fps.toFixed(1)} fps · last frame ${((Date.now() - from) / 1000).toFixed(1)} s ago`;
  }
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
  protocols: string[],
): () => void {
  const stats = new FrameStats();
  let waiting: ArrayBuffer | null = null;
  let busy = false;
  let dropped = 0;

  const raw = ref.type.endsWith(".Image"); // raw pixels: megabytes once inflated
  const figures = (): void => status.figures(stats.text() + (dropped ? ` · ${dropped} dropped` : ""));
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
          // When the picture on screen was taken: the teleop widget reports its age to the
          // robot's gateway, whose governor slows the robot when it lags.
          el.dataset.pictureAt = String(stats.shownAt());
          if (stats.count === 1) figures();
        }
      } catch (e) {
        status.figures(`bad frame: ${(e as Error).message}`);
      }
    }
    busy = false;
  };

  const sock = openLive(
    ref,
    "output",
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
    protocols,
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
