// The camera widget: a canvas fed by W3 (CompressedImage through createImageBitmap, raw
// Image converted in place, CompressedVideo through WebCodecs' VideoDecoder), with frame rate,
// age of the last frame, codec, size and bitrate. For JPEG it keeps one slot for the newest
// frame: while a frame decodes or draws, newer ones replace the waiting one, so a slow tab
// drops frames rather than falling behind. H.264 frames depend on the ones before: they go to
// the decoder in order, and the player (video/player.ts) skips to the next keyframe instead.
// A stream that offers H.264 (data-codecs) is asked for it where the page can decode it (a
// secure context with VideoDecoder); otherwise, or when the decoder fails, the widget stays on
// JPEG and says why. On the cloud panel (no W3) it shows a snapshot through the REST stream
// read once a second, and says so.
import { decode } from "../decode/decoder.js";
import { payloadFromJSON } from "../decode/frame.js";
import type { Payload } from "../decode/catalog.js";
import { rawToRGBA } from "../decode/pixels.js";
import { H264Player, h264Unavailable, maxDecodeQueue, webCodecsDecoder } from "../video/player.js";
import { StatusLine } from "./status.js";
import { codecsOf, liveFeed, readStream, streamOf, type Feed, type StreamRef } from "./stream.js";

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
  if (feed) return live(el, ref, canvas, status, extra, feed, { asked: "jpeg", reason: "" });
  return liveCamera(el, ref, canvas, status, extra, protocols);
}

/**
 * Whether the stream offers H.264: as the page says (data-codecs, space-separated), else as
 * endpoint 6 lists it. A camera opened by address (extra.url) is not on the robot's list.
 */
async function offersH264(el: HTMLElement, ref: StreamRef, extra: Record<string, string>): Promise<boolean> {
  if (el.dataset.codecs !== undefined) return el.dataset.codecs.split(/\s+/).includes("h264");
  if (extra.url) return false;
  return (await codecsOf(ref)).includes("h264");
}

/**
 * The live socket, asking for H.264 where the stream offers it and the page decodes it, else
 * JPEG with the reason; a decoder that fails sends the widget back to JPEG, saying why.
 */
function liveCamera(el: HTMLElement, ref: StreamRef, canvas: HTMLCanvasElement, status: StatusLine, extra: Record<string, string>, protocols: string[]): () => void {
  let stop: (() => void) | null = null;
  let stopped = false;
  const start = (asked: Codec, reason: string): void => {
    if (stopped) return;
    const params = asked === "h264" ? { ...extra, codec: "h264" } : extra;
    stop = live(el, ref, canvas, status, params, liveFeed(protocols), {
      asked,
      reason,
      onVideoError: (why) => {
        stop?.();
        start("jpeg", `the H.264 decoder failed: ${why}`);
      },
    });
  };
  const choose = async (): Promise<void> => {
    if (!(await offersH264(el, ref, extra))) return start("jpeg", "");
    const why = await h264Unavailable(globalThis as Parameters<typeof h264Unavailable>[0]);
    start(why ? "jpeg" : "h264", why ?? "");
  };
  choose().catch((e: unknown) => start("jpeg", String(e)));
  return () => {
    stopped = true;
    stop?.();
  };
}

type Codec = "h264" | "jpeg";

interface CodecChoice {
  /** What the socket asked for. */
  asked: Codec;
  /** Why it asked for JPEG though the stream offers H.264 ("" when it does not). */
  reason: string;
  /** The decoder failed: the caller reopens the stream on JPEG. */
  onVideoError?: (why: string) => void;
}

class FrameStats {
  private times: number[] = [];
  private received: { at: number; bytes: number }[] = [];
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

  /** An envelope of n bytes arrived: the bitrate counts what crossed the network, shown or not. */
  bytes(n: number): void {
    const now = this.now();
    this.received.push({ at: now, bytes: n });
    while (this.received.length && (now - this.received[0]!.at > 2000 || now < this.received[0]!.at)) this.received.shift();
  }

  /** The bitrate over the last two seconds, in words. */
  bitrate(): string {
    const r = this.received;
    if (r.length < 2) return "";
    const bits = r.slice(1).reduce((a, x) => a + x.bytes, 0) * 8;
    const secs = (r.at(-1)!.at - r[0]!.at) / 1000;
    if (secs <= 0) return "";
    const bps = bits / secs;
    return bps >= 1e6 ? `${(bps / 1e6).toFixed(1)} Mbit/s` : `${Math.round(bps / 1e3)} kbit/s`;
  }

  /** When the last frame was taken (ms since the epoch): the robot's clock unless it is ahead of ours. */
  shownAt(): number {
    return this.lastPublished && this.lastPublished <= this.now() ? this.lastPublished : this.lastReceived;
  }

  text(): string {
    if (!this.count) return "no frame yet";
    // A recording's seek shows a run of frames at one moment of its time: no rate.
    const span = this.times.length > 1 ? this.times.at(-1)! - this.times[0]! : 0;
    const fps = span > 0 ? (this.times.length - 1) / (span / 1000) : 0;
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
  choice: CodecChoice,
): () => void {
  const stats = new FrameStats(() => feed.now());
  const pending: ArrayBuffer[] = [];
  let busy = false;
  let dropped = 0;
  let stopped = false;
  // What the frames are: set by the first payload, shown with the reason for JPEG.
  let shown = "";
  let video: H264Player | null = null;
  let videoFailed = "";
  el.dataset.codec = choice.asked;
  if (choice.reason) el.dataset.codecReason = choice.reason;
  else delete el.dataset.codecReason;

  const raw = ref.type.endsWith(".Image"); // raw pixels: megabytes once inflated
  const figures = (): void => {
    // A recording's frame says when it was taken: the time a shared moment or a marker names.
    const at = feed.recorded && stats.lastPublished ? `frame of ${frameTimeWords(stats.lastPublished)} · ` : "";
    const what = [
      shown && (shown === "JPEG" && choice.reason ? `JPEG: ${choice.reason}` : shown),
      stats.count ? `${canvas.width}×${canvas.height}` : "",
      stats.bitrate(),
      videoFailed,
      video?.skipped ? `${video.skipped} skipped to a keyframe` : "",
      dropped ? `${dropped} dropped` : "",
    ].filter(Boolean);
    status.figures([at + stats.text(), ...what].join(" · "));
  };
  const shownFrame = (publishedMs: number): void => {
    stats.frame(publishedMs);
    el.dataset.frames = String(stats.count);
    el.dataset.frameTime = String(publishedMs);
    // When the picture on screen was taken: the teleop widget reports its age to the
    // robot's gateway, whose governor slows the robot when it lags.
    el.dataset.pictureAt = String(stats.shownAt());
    if (stats.count === 1 || feed.recorded) figures();
  };
  const videoPlayer = (): H264Player | null => {
    if (video || videoFailed) return video;
    if (typeof VideoDecoder === "undefined") {
      videoFailed = "H.264 cannot be shown: this browser has no WebCodecs VideoDecoder";
      return null;
    }
    video = new H264Player(
      webCodecsDecoder(
        (f) => {
          if (!stopped) {
            if (canvas.width !== f.displayWidth || canvas.height !== f.displayHeight) {
              canvas.width = f.displayWidth;
              canvas.height = f.displayHeight;
            }
            canvas.getContext("2d")?.drawImage(f, 0, 0);
            shownFrame(f.timestamp / 1000);
          }
          f.close(); // a frame held keeps decoder memory: the decoder stalls
        },
        (e) => {
          if (stopped) return;
          videoFailed = `the H.264 decoder failed: ${e.message}`;
          figures();
          choice.onVideoError?.(e.message);
        },
      ),
      // A recording's player paces its frames itself; a seek hands over the run from a keyframe at once.
      feed.recorded ? Infinity : maxDecodeQueue,
    );
    return video;
  };
  const show = async (p: Payload, sequence: bigint, publishedMs: number): Promise<void> => {
    if (p.dataType === "Platform.Messages.foxglove_msgs.CompressedVideo") {
      shown = "H.264";
      el.dataset.codec = "h264";
      videoPlayer()?.push(p.message.data, sequence, publishedMs * 1000);
      return;
    }
    shown = raw ? "raw" : p.dataType === "Platform.Messages.sensor_msgs.CompressedImage" && p.message.format.toLowerCase().includes("png") ? "PNG" : "JPEG";
    if (!raw) el.dataset.codec = "jpeg";
    if (await draw(canvas, p)) shownFrame(publishedMs);
  };
  const pump = async (): Promise<void> => {
    busy = true;
    while (pending.length && !stopped) {
      const buf = pending.shift()!;
      try {
        const f = await decode(buf, raw);
        if (f.payload) await show(f.payload, f.sequence, f.publishedMs);
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
        stats.bytes(data.byteLength);
        if (choice.asked === "h264" || ref.type.endsWith(".CompressedVideo") || shown === "H.264") {
          // In order: the player skips what it cannot decode. A page that stalled (a hidden
          // tab) drops its backlog; the sequence gap sends the player to the next keyframe.
          if (pending.length >= maxBacklog && !feed.recorded) dropped += pending.splice(0).length;
        } else if (pending.length) {
          dropped += pending.splice(0).length; // newest wins
        }
        pending.push(data);
        if (!busy) void pump();
      },
      onReset: () => {
        pending.length = 0;
      },
    },
    extra,
  );
  const timer = setInterval(figures, 500);
  return () => {
    stopped = true;
    clearInterval(timer);
    sock.stop();
    video?.close();
  };
}

/** Envelopes an H.264 view lets wait for decoding before it drops them all (a stalled page). */
const maxBacklog = 30;

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
