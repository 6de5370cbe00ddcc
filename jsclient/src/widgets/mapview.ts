// MapView draws an OccupancyGrid (drawn once to an offscreen canvas) and robot poses on top,
// scaled to fit its canvas. Map y grows upwards, canvas y downwards.
import type { Pose2D } from "./kpi.js";
import { payloadFromJSON } from "../decode/frame.js";
import type { Payload } from "../decode/catalog.js";

export interface Grid {
  width: number;
  height: number;
  resolution: number;
  originX: number;
  originY: number;
  cells: Uint8Array | Int8Array;
}

/** The grid of an OccupancyGrid as the REST read (protojson) gives it. */
export function gridFromJSON(v: unknown): Grid | null {
  const p = payloadFromJSON("Platform.Messages.nav_msgs.OccupancyGrid", v);
  return p ? gridOf(p) : null;
}

/** The grid of a decoded OccupancyGrid (a W3 frame, a recording's message); null for another type. */
export function gridOf(p: Payload): Grid | null {
  if (p.dataType !== "Platform.Messages.nav_msgs.OccupancyGrid") return null;
  const { info, data } = p.message;
  if (!info?.width || !info.height || data.length < info.width * info.height) return null;
  return {
    width: info.width,
    height: info.height,
    resolution: info.resolution || 0.05,
    originX: info.origin?.position?.x ?? 0,
    originY: info.origin?.position?.y ?? 0,
    cells: new Int8Array(data.buffer, data.byteOffset, data.byteLength), // -1 unknown, 0..100
  };
}

/** Colours of a light map (the panel) and a dark one (the kiosk wall, read across a room). */
const themes = {
  light: { bg: "#e8e8e8", free: 255, occupied: 0, unknown: 205, label: "#111", robot: "#1769e0", stale: "#999", alert: "#c53030", trail: "rgba(23,105,224,.55)" },
  dark: { bg: "#0b0f17", free: 38, occupied: 205, unknown: 22, label: "#f2f5fb", robot: "#4d9bff", stale: "#7c8799", alert: "#ff5a5a", trail: "rgba(77,155,255,.6)" },
};

/** A robot's way to its goal, drawn over the map: the goal, the waypoints after it, the path left. */
export interface NavOverlay {
  goal?: { x: number; y: number };
  waypoints?: { x: number; y: number }[];
  path?: { x: number; y: number }[];
}

/** How many positions a trail keeps. */
const trailLength = 600;

export class MapView {
  readonly canvas = document.createElement("canvas");
  private grid: Grid | null = null;
  private image: HTMLCanvasElement | null = null;
  private poses = new Map<string, { pose: Pose2D; label: string; stale: boolean; alert: boolean }>();
  private trails = new Map<string, [number, number][]>();
  private theme: (typeof themes)["light"];
  private nav: NavOverlay | null = null;
  /** The last draw's mapping from the world to the canvas, for toWorld. */
  private view = { minX: 0, minY: 0, scale: 1, ox: 0, oy: 0, H: 0 };
  labelPx = 12;

  constructor(width = 800, height = 500, dark = false) {
    this.canvas.className = dark ? "map dark" : "map";
    this.canvas.width = width;
    this.canvas.height = height;
    this.theme = dark ? themes.dark : themes.light;
  }

  /** Sets the canvas to w x h pixels, when they changed, and redraws. */
  resize(w: number, h: number): void {
    w = Math.max(100, Math.round(w));
    h = Math.max(100, Math.round(h));
    if (this.canvas.width === w && this.canvas.height === h) return;
    this.canvas.width = w;
    this.canvas.height = h;
    this.draw();
  }

  /** Adds a position to robot id's trail (a bounded ring: the page runs for hours). */
  addTrail(id: string, pose: Pose2D): void {
    let t = this.trails.get(id);
    if (!t) this.trails.set(id, (t = []));
    const last = t.at(-1);
    if (last && Math.hypot(last[0] - pose.x, last[1] - pose.y) < 0.02) return;
    t.push([pose.x, pose.y]);
    if (t.length > trailLength) t.splice(0, t.length - trailLength);
    this.canvas.dataset.trail = String(t.length);
  }

  /** Forgets the trails (a recording's player jumped to another time). */
  clearTrails(): void {
    this.trails.clear();
    delete this.canvas.dataset.trail;
  }

  setGrid(g: Grid): void {
    this.grid = g;
    this.canvas.dataset.grid = `${g.width}x${g.height}`;
    const c = document.createElement("canvas");
    c.width = g.width;
    c.height = g.height;
    const ctx = c.getContext("2d")!;
    const img = ctx.createImageData(g.width, g.height);
    for (let y = 0; y < g.height; y++) {
      for (let x = 0; x < g.width; x++) {
        const v = g.cells[y * g.width + x]!;
        const th = this.theme;
        const shade = v < 0 ? th.unknown : Math.round(th.free + ((th.occupied - th.free) * Math.min(v, 100)) / 100);
        const o = ((g.height - 1 - y) * g.width + x) * 4; // flip: row 0 is the bottom
        img.data[o] = img.data[o + 1] = img.data[o + 2] = shade;
        img.data[o + 3] = 255;
      }
    }
    ctx.putImageData(img, 0, 0);
    this.image = c;
    this.draw();
  }

  /** Sets the goal overlay (null: none). */
  setNav(n: NavOverlay | null): void {
    this.nav = n;
  }

  /** The map point (metres) under canvas pixel (px, py), as the canvas was last drawn. */
  toWorld(px: number, py: number): { x: number; y: number } {
    const v = this.view;
    return { x: v.minX + (px - v.ox) / v.scale, y: v.minY + (v.H - v.oy - py) / v.scale };
  }

  setPose(id: string, pose: Pose2D, label: string, stale = false, alert = false): void {
    this.poses.set(id, { pose, label, stale, alert });
  }

  draw(): void {
    const ctx = this.canvas.getContext("2d");
    if (!ctx) return;
    const W = this.canvas.width;
    const H = this.canvas.height;
    const th = this.theme;
    ctx.fillStyle = th.bg;
    ctx.fillRect(0, 0, W, H);
    const g = this.grid;
    // World bounds: the grid's, or the poses' when there is no grid yet.
    let minX = g ? g.originX : -10;
    let minY = g ? g.originY : -10;
    let maxX = g ? g.originX + g.width * g.resolution : 10;
    let maxY = g ? g.originY + g.height * g.resolution : 10;
    if (!g) {
      for (const { pose } of this.poses.values()) {
        minX = Math.min(minX, pose.x - 2);
        maxX = Math.max(maxX, pose.x + 2);
        minY = Math.min(minY, pose.y - 2);
        maxY = Math.max(maxY, pose.y + 2);
      }
    }
    const scale = Math.min(W / (maxX - minX), H / (maxY - minY));
    const ox = (W - (maxX - minX) * scale) / 2;
    const oy = (H - (maxY - minY) * scale) / 2;
    this.view = { minX, minY, scale, ox, oy, H };
    // For tests that click on a map point: the world-to-canvas mapping, as toWorld inverts it.
    this.canvas.dataset.view = [minX, minY, scale, ox, oy, H].join(",");
    const toPx = (x: number, y: number): [number, number] => [ox + (x - minX) * scale, H - oy - (y - minY) * scale];
    if (g && this.image) {
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(this.image, ox, oy, g.width * g.resolution * scale, g.height * g.resolution * scale);
    }
    ctx.lineWidth = 2;
    ctx.strokeStyle = th.trail;
    for (const t of this.trails.values()) {
      if (t.length < 2) continue;
      ctx.beginPath();
      t.forEach(([x, y], i) => {
        const [px, py] = toPx(x, y);
        if (i) ctx.lineTo(px, py);
        else ctx.moveTo(px, py);
      });
      ctx.stroke();
    }
    if (this.nav) this.drawNav(ctx, toPx);
    ctx.font = `${this.labelPx}px system-ui, sans-serif`;
    for (const { pose, label, stale, alert } of this.poses.values()) {
      const [px, py] = toPx(pose.x, pose.y);
      const r = Math.max(this.labelPx / 2, 0.35 * scale);
      ctx.save();
      ctx.translate(px, py);
      ctx.rotate(-pose.yaw);
      ctx.beginPath();
      ctx.moveTo(r * 1.4, 0);
      ctx.lineTo(-r, r * 0.8);
      ctx.lineTo(-r, -r * 0.8);
      ctx.closePath();
      ctx.fillStyle = alert ? th.alert : stale ? th.stale : th.robot;
      ctx.fill();
      ctx.restore();
      ctx.fillStyle = th.label;
      ctx.fillText(stale ? `${label} (stale)` : label, px + r + 2, py - r);
    }
  }

  /** The path left (dashed), the waypoints (rings) and the goal (a cross in a ring). */
  private drawNav(ctx: CanvasRenderingContext2D, toPx: (x: number, y: number) => [number, number]): void {
    const n = this.nav!;
    ctx.save();
    ctx.strokeStyle = this.theme.alert;
    ctx.lineWidth = 2;
    if (n.path && n.path.length > 1) {
      ctx.setLineDash([6, 4]);
      ctx.beginPath();
      n.path.forEach((p, i) => {
        const [px, py] = toPx(p.x, p.y);
        if (i) ctx.lineTo(px, py);
        else ctx.moveTo(px, py);
      });
      ctx.stroke();
      ctx.setLineDash([]);
    }
    const ring = (x: number, y: number, cross: boolean): void => {
      const [px, py] = toPx(x, y);
      ctx.beginPath();
      ctx.arc(px, py, 7, 0, 2 * Math.PI);
      ctx.stroke();
      if (!cross) return;
      ctx.beginPath();
      ctx.moveTo(px - 5, py - 5);
      ctx.lineTo(px + 5, py + 5);
      ctx.moveTo(px + 5, py - 5);
      ctx.lineTo(px - 5, py + 5);
      ctx.stroke();
    };
    for (const w of n.waypoints ?? []) ring(w.x, w.y, false);
    if (n.goal) ring(n.goal.x, n.goal.y, true);
    ctx.restore();
  }
}
