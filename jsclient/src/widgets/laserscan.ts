// The laser scan widget: a 2D polar view around the robot (forward is up), scaled to the
// scan's range, redrawn once per animation frame with the newest scan only.
import { decode } from "../decode/decoder.js";
import { StatusLine } from "./status.js";
import { liveFeed, streamOf, type Feed } from "./stream.js";

interface Scan {
  angleMin: number;
  angleIncrement: number;
  rangeMin: number;
  rangeMax: number;
  ranges: number[];
}

/** Mounts the scan view on el, fed by the live socket or by feed (a recording's player). */
export function mountLaserScan(el: HTMLElement, feed: Feed = liveFeed()): () => void {
  const ref = streamOf(el);
  const canvas = document.createElement("canvas");
  canvas.className = "laserscan";
  canvas.width = canvas.height = 500;
  const status = new StatusLine(el);
  el.append(canvas, status.el);
  let latest: Scan | null = null;
  let frames = 0;
  let queued = false;
  const sock = feed.open(ref, {
    staleAfterMs: 3000,
    onStatus: (s) => status.socketStatus(s),
    onMessage: (data) => {
      if (typeof data === "string") return;
      void decode(data).then((f) => {
        if (f.payload?.dataType !== "Platform.Messages.sensor_msgs.LaserScan") return;
        latest = f.payload.message;
        el.dataset.frames = String(++frames);
        if (!queued) {
          queued = true;
          requestAnimationFrame(() => {
            queued = false;
            if (latest) drawScan(canvas, latest);
          });
        }
      });
    },
  });
  return () => sock.stop();
}

export function drawScan(canvas: HTMLCanvasElement, s: Scan): void {
  const ctx = canvas.getContext("2d");
  if (!ctx) return;
  const W = canvas.width;
  const H = canvas.height;
  const cx = W / 2;
  const cy = H / 2;
  const max = s.rangeMax > 0 && Number.isFinite(s.rangeMax) ? s.rangeMax : Math.max(1, ...s.ranges.filter(Number.isFinite));
  const scale = (Math.min(W, H) / 2 - 10) / max;
  ctx.fillStyle = "#10141a";
  ctx.fillRect(0, 0, W, H);
  ctx.strokeStyle = "#2c3440";
  ctx.fillStyle = "#6b7686";
  ctx.font = "11px system-ui, sans-serif";
  const ring = max > 10 ? 5 : 1;
  for (let r = ring; r <= max; r += ring) {
    ctx.beginPath();
    ctx.arc(cx, cy, r * scale, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.fillText(`${r} m`, cx + 3, cy - r * scale - 2);
  }
  ctx.fillStyle = "#4fd18b";
  for (let i = 0; i < s.ranges.length; i++) {
    const r = s.ranges[i]!;
    if (!Number.isFinite(r) || r < s.rangeMin || r > s.rangeMax) continue;
    const a = s.angleMin + i * s.angleIncrement;
    // Robot frame: x forward (up on screen), y left.
    const x = cx - Math.sin(a) * r * scale;
    const y = cy - Math.cos(a) * r * scale;
    ctx.fillRect(x - 1.5, y - 1.5, 3, 3);
  }
  ctx.fillStyle = "#1769e0";
  ctx.beginPath();
  ctx.moveTo(cx, cy - 9);
  ctx.lineTo(cx - 6, cy + 6);
  ctx.lineTo(cx + 6, cy + 6);
  ctx.closePath();
  ctx.fill();
}
