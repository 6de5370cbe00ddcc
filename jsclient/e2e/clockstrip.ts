// Glass to glass in the browser: the reader of the capture time the simulated camera burns
// into its pictures (fleetgate agent --sim-clock-strip; the layout is package clockstrip's,
// internal/clockstrip/clockstrip.go, and must stay the same), and a meter that a page runs from
// its first script on. The meter notes, for every frame the camera widget draws on its canvas,
// when it was drawn and the time burned into the canvas's pixels (glass to glass), and for
// every message on the camera's socket, when it arrived and its envelope's publish time (the
// age make bench-uplink measures).
import type { BrowserContext } from "playwright-core";

/** What the meter saw: times in ms since the epoch, on the page's clock (the machine's). */
export interface GlassSamples {
  /** A frame drawn: when, the time burned into it (null: no strip read), the envelope's time the widget drew it for. */
  drawn: { at: number; burned: number | null; frameTime: number }[];
  /** A camera message received: when, and its envelope's publish time. */
  received: { at: number; published: number }[];
}

/**
 * The page's meter, self-contained (Playwright hands its source to the page): it wraps
 * WebSocket to time the camera socket's messages and watches the camera widget's
 * data-frame-time, which the widget sets right after drawing a frame.
 */
function meter(): void {
  const samples = { drawn: [], received: [] } as GlassSamples;
  (window as unknown as { __glass: GlassSamples }).__glass = samples;

  // The clockstrip layout: the bottom sixteenth, 32 cells; cell 0 white, 1 black, 24 bits of
  // the milliseconds modulo 2^24, a 6-bit check (the XOR of the value's 6-bit groups).
  const cells = 32, heightDiv = 16, valueBits = 24, checkBits = 6, wrap = 2 ** valueBits;
  const read = (canvas: HTMLCanvasElement, now: number): number | null => {
    const w = canvas.width, h = canvas.height;
    if (w < cells || h < heightDiv) return null;
    const y0 = h - Math.floor(h / heightDiv);
    const px = canvas.getContext("2d")!.getImageData(0, y0, w, h - y0).data;
    const cell = (i: number): number => {
      let x0 = Math.floor((i * w) / cells), x1 = Math.floor(((i + 1) * w) / cells);
      let ya = 0, yb = h - y0;
      const qx = Math.floor((x1 - x0) / 4), qy = Math.floor((yb - ya) / 4);
      [x0, x1, ya, yb] = [x0 + qx, Math.max(x1 - qx, x0 + qx + 1), ya + qy, Math.max(yb - qy, ya + qy + 1)];
      let sum = 0, n = 0;
      for (let y = ya; y < yb; y++) {
        for (let x = x0; x < x1; x++) {
          const o = (y * w + x) * 4;
          sum += (299 * px[o]! + 587 * px[o + 1]! + 114 * px[o + 2]!) / 1000;
          n++;
        }
      }
      return sum / n;
    };
    const white = cell(0), black = cell(1);
    if (white - black < 64) return null;
    const threshold = (white + black) / 2;
    let v = 0, check = 0;
    for (let i = 0; i < valueBits; i++) v = v * 2 + (cell(2 + i) > threshold ? 1 : 0);
    for (let i = 0; i < checkBits; i++) check = check * 2 + (cell(2 + valueBits + i) > threshold ? 1 : 0);
    if (((v ^ (v >> 6) ^ (v >> 12) ^ (v >> 18)) & 63) !== check) return null;
    // The latest time not after now whose milliseconds modulo 2^24 are v.
    return now - ((((now % wrap) - v) % wrap) + wrap) % wrap;
  };

  // The envelope's publish_time (field 7: sec = 1, nanosec = 2), read without the bundle's decoder.
  const published = (b: Uint8Array): number | null => {
    let i = 0;
    const varint = (): number => {
      let v = 0, m = 1;
      for (;;) {
        const c = b[i++]!;
        v += (c & 127) * m;
        if (c < 128) return v;
        m *= 128;
      }
    };
    while (i < b.length) {
      const key = varint(), field = Math.floor(key / 8), type = key & 7;
      if (type === 0) varint();
      else if (type === 1) i += 8;
      else if (type === 5) i += 4;
      else if (type === 2) {
        const n = varint();
        if (field === 7) {
          const end = i + n;
          let sec = 0, nsec = 0;
          while (i < end) {
            const k = varint();
            if (k === 8) sec = varint();
            else if (k === 16) nsec = varint();
            else return null;
          }
          return sec * 1000 + nsec / 1e6;
        }
        i += n;
      } else return null;
    }
    return null;
  };

  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      if (!String(url).includes("streamName=image")) return;
      this.addEventListener("message", (ev: MessageEvent) => {
        const at = Date.now();
        if (ev.data instanceof ArrayBuffer) {
          const p = published(new Uint8Array(ev.data));
          if (p !== null) samples.received.push({ at, published: p });
        }
      });
    }
  };

  let last = "";
  new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target as HTMLElement;
      const frameTime = el.dataset.frameTime;
      const canvas = el.querySelector("canvas");
      if (!frameTime || frameTime === last || !canvas) continue;
      last = frameTime;
      const at = Date.now();
      samples.drawn.push({ at, burned: read(canvas, at), frameTime: Number(frameTime) });
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-frame-time"] });
}

/** Runs the meter in every page of context from its first script on. */
export async function installGlassMeter(context: BrowserContext): Promise<void> {
  await context.addInitScript(meter);
}

/** The p-th percentile (nearest rank) of xs, in ms; NaN for none. */
export function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** The figures of one run: glass-to-glass and envelope ages, and how the strips read. */
export function glassFigures(s: GlassSamples, seconds: number) {
  const read = s.drawn.filter((d) => d.burned !== null);
  const glass = read.map((d) => d.at - d.burned!);
  const envelope = s.received.map((r) => r.at - r.published);
  // A frame whose burned time is not its envelope's: the envelope's time is not the picture's.
  const mislabelled = read.filter((d) => Math.abs(d.burned! - Math.floor(d.frameTime)) > 1).length;
  const r = (x: number) => Math.round(x);
  return {
    drawn: s.drawn.length,
    unread: s.drawn.length - read.length,
    mislabelled,
    fps: s.drawn.length / seconds,
    glassP50: r(percentile(glass, 50)),
    glassP99: r(percentile(glass, 99)),
    envelopeP50: r(percentile(envelope, 50)),
    envelopeP99: r(percentile(envelope, 99)),
  };
}
