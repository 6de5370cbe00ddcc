// H.264 in the browser: the camera widget on the local gateway (http://127.0.0.1 is a secure
// context) asks sim-1's camera for codec=h264 and decodes it with WebCodecs' VideoDecoder in
// Debian's chromium; a page without VideoDecoder stays on JPEG and says why. The fleet view's
// camera tiles take the same path.
//
// Glass to glass through the cloud (issue 31): the agent's simulated camera burns each
// picture's capture time into it (--sim-clock-strip), the cloud panel's camera widget decodes
// the picture (H.264 with WebCodecs, JPEG with createImageBitmap) and draws it, and the page
// reads the time back from the canvas as each frame is drawn (clockstrip.ts); beside it, each
// camera message's envelope age as the socket delivers it (what make bench-uplink measures).
// The figures are logged and written to test-artifacts/e2e/glass-*.json;
// FLEETGATE_GLASS_SECONDS (default 3) sets the window (docs/performance.md's figures are from
// longer runs: FLEETGATE_GLASS_SECONDS=20 npx vitest run --config jsclient/vitest.e2e.config.ts
// jsclient/e2e/video.e2e.ts -t "glass").
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { glassFigures, installGlassMeter, type GlassSamples } from "./clockstrip.js";
import { artifacts, eventually, problems, shot, signIn, startFleet, type Fleet } from "./harness.js";

let fleet: Fleet;
let context: BrowserContext;
let page: Page;
let robot = "";

beforeAll(async () => {
  fleet = await startFleet({ agentArgs: ["--sim-clock-strip"] });
  ({ context, page } = await signIn(fleet.browser, fleet.agent));
  await page.goto("/");
  robot = await eventually(
    () => page.$$eval("tr[data-robot-id]", (trs) => trs.find((tr) => tr.querySelector("a")?.textContent === "sim-1")?.getAttribute("data-robot-id")),
    "sim-1 listed",
  );
});

afterAll(async () => {
  await context?.close();
  await fleet?.stop();
});

const glassSeconds = Number(process.env.FLEETGATE_GLASS_SECONDS ?? 3);

const frames = (p: Page) => p.$eval("[data-widget=camera]", (el) => ({ codec: (el as HTMLElement).dataset.codec, frames: Number((el as HTMLElement).dataset.frames ?? 0) }));

/** Watches sim-1's camera on the cloud's panel for the window, H.264 where the page decodes it. */
async function watch(codec: "h264" | "jpeg") {
  const { context, page } = await signIn(fleet.browser, fleet.cloud);
  try {
    await page.goto("/");
    const robot = await eventually(
      () => page.$$eval("tr[data-robot-id]", (trs) => trs.find((tr) => tr.querySelector("a")?.textContent === "sim-1")?.getAttribute("data-robot-id")),
      "sim-1 listed on the cloud",
      30_000,
    );
    if (codec === "jpeg") {
      await context.addInitScript(() => {
        delete (window as { VideoDecoder?: unknown }).VideoDecoder;
      });
    }
    await installGlassMeter(context);
    await page.goto(`/robots/${robot}/streams?component=camera&stream=image&source=1`);
    await eventually(async () => {
      const f = await frames(page);
      return f.codec === codec && f.frames >= 3;
    }, `${codec} frames through the cloud`, 20_000);
    // The window starts with the picture flowing: the wait for the first is another figure.
    await page.evaluate(() => {
      const g = (window as unknown as { __glass: GlassSamples }).__glass;
      g.drawn.length = 0;
      g.received.length = 0;
    });
    const start = Date.now();
    // The window, and at least 10 pictures to read: a loaded machine draws 2 a second.
    const drawn = () => page.evaluate(() => (window as unknown as { __glass: GlassSamples }).__glass.drawn.length);
    await eventually(async () => Date.now() - start >= glassSeconds * 1000 && (await drawn()) >= 10, "the window and 10 pictures drawn", glassSeconds * 1000 + 20_000);
    const samples = await page.evaluate(() => (window as unknown as { __glass: GlassSamples }).__glass);
    const figures = glassFigures(samples, (Date.now() - start) / 1000);
    console.log(`glass to glass through the cloud, ${codec}, ${glassSeconds} s: ${JSON.stringify(figures)}`);
    writeFileSync(path.join(artifacts, `glass-${codec}.json`), JSON.stringify({ codec, glassSeconds, figures, samples }, null, 1));
    return figures;
  } finally {
    await context.close();
  }
}

const cameraPage = () => `/robots/${robot}/streams?component=camera&stream=image&source=1`;

const camera = (p: Page, sel = "[data-widget=camera]") =>
  p.$eval(sel, (el) => ({ ...(el as HTMLElement).dataset, status: el.querySelector(":scope > .widget-status")?.textContent ?? "" }));

/** The canvas's size and how many distinct colours a grid of its pixels has (1: blank). */
const canvasPixels = (p: Page, sel = "[data-widget=camera] canvas") =>
  p.$eval(sel, (c) => {
    const canvas = c as HTMLCanvasElement;
    const px = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
    const colours = new Set<number>();
    for (let y = 0; y < canvas.height; y += 8) {
      for (let x = 0; x < canvas.width; x += 8) {
        const i = (y * canvas.width + x) * 4;
        colours.add((px[i]! << 16) | (px[i + 1]! << 8) | px[i + 2]!);
      }
    }
    return { width: canvas.width, height: canvas.height, colours: colours.size };
  });

describe("H.264 camera view", () => {
  it("decodes the camera's H.264 with WebCodecs on a canvas, and says so with size, fps and bitrate", async () => {
    const sockets: string[] = [];
    page.on("websocket", (ws) => sockets.push(ws.url()));
    await page.goto(cameraPage());
    const d = await eventually(async () => {
      const d = await camera(page);
      return d.codec === "h264" && Number(d.frames) >= 10 && d;
    }, "decoded H.264 frames", 20_000);
    expect(d.codecReason).toBeUndefined();
    expect(sockets.some((u) => u.includes("streamName=image") && u.includes("codec=h264"))).toBe(true);
    const px = await canvasPixels(page);
    expect(px.width).toBeGreaterThan(0);
    expect(px.height).toBeGreaterThan(0);
    expect(px.colours).toBeGreaterThan(8); // a picture, not a blank canvas
    await eventually(async () => {
      const s = (await camera(page)).status;
      return new RegExp(`[\\d.]+ fps · last frame [\\d.]+ s ago · H\\.264 · ${px.width}×${px.height} · \\d+(\\.\\d)? [kM]bit/s`).test(s) && s;
    }, "H.264, size, fps and bitrate under the view");
    await shot(page, "video-01-h264");
  });

  it("stays on JPEG and says why where the browser has no VideoDecoder", async () => {
    const { context: bare, page: p } = await signIn(fleet.browser, fleet.agent);
    try {
      await bare.addInitScript(() => {
        delete (window as { VideoDecoder?: unknown }).VideoDecoder;
      });
      const sockets: string[] = [];
      p.on("websocket", (ws) => sockets.push(ws.url()));
      await p.goto(cameraPage());
      const d = await eventually(async () => {
        const d = await camera(p);
        return d.codec === "jpeg" && Number(d.frames) >= 3 && /JPEG: this browser has no WebCodecs VideoDecoder/.test(d.status) && d;
      }, "JPEG frames with the reason", 20_000);
      expect(d.codecReason).toMatch(/no WebCodecs VideoDecoder/);
      expect(sockets.filter((u) => u.includes("streamName=image")).some((u) => u.includes("codec="))).toBe(false);
      expect((await canvasPixels(p)).colours).toBeGreaterThan(8);
      await shot(p, "video-02-jpeg-fallback");
    } finally {
      await bare.close();
    }
  });

  it("shows H.264 in the fleet view's camera tiles", async () => {
    await page.goto("/fleet");
    const sel = ".camera-card [data-widget=camera]";
    await eventually(async () => {
      const all = await page.$$eval(sel, (els) => els.map((el) => ({ codec: (el as HTMLElement).dataset.codec, frames: Number((el as HTMLElement).dataset.frames ?? 0) })));
      return all.length > 0 && all.every((c) => c.codec === "h264" && c.frames >= 3);
    }, "every camera tile on H.264", 20_000);
    await shot(page, "video-03-fleet");
  });

  it("plays a recording of the camera, recorded as H.264, in the robot's page", async () => {
    const api = (path: string, init: { method?: string; body?: unknown } = {}) =>
      page.evaluate(
        async ([path, method, body]) => {
          const r = await fetch(path, { method, credentials: "same-origin", headers: { "Content-Type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
          return (await r.json()) as { id?: string; recordings?: { id: string; recorderState: string; streams?: unknown }[] };
        },
        [path, init.method ?? "GET", init.body] as const,
      );
    const started = await api(`/panel/api/robots/${robot}/recordings`, { method: "POST", body: { streams: ["camera/image"], durationSeconds: 4 } });
    const id = started.id!;
    await eventually(async () => (await api(`/panel/api/robots/${robot}/recordings`)).recordings?.find((r) => r.id === id)?.recorderState === "Stopped", "the recording finished", 20_000);
    await page.goto(`/robots/${robot}/recordings/${id}?t=3`);
    const sel = ".player-camera [data-widget=camera]";
    const d = await eventually(async () => {
      const d = await camera(page, sel);
      return d.codec === "h264" && Number(d.frames) >= 1 && d;
    }, "a decoded frame of the recording at 3 s", 20_000).catch(async (e: Error) => {
      const player = await page.$eval(".player", (el) => JSON.stringify((el as HTMLElement).dataset)).catch(() => "no player");
      throw new Error(`${e.message}: ${JSON.stringify(await camera(page, sel).catch(() => null))}; player ${player}`);
    });
    expect(d.type).toBe("Platform.Messages.foxglove_msgs.CompressedVideo");
    expect(d.status).toMatch(/frame of .* · H\.264 · \d+×\d+/);
    expect((await canvasPixels(page, `${sel} canvas`)).colours).toBeGreaterThan(8);
    await page.click(".player-play");
    await eventually(async () => Number((await camera(page, sel)).frames) > Number(d.frames), "later frames played");
    await shot(page, "video-04-playback");
  });

  for (const codec of ["h264", "jpeg"] as const) {
    it(
      `glass to glass through the cloud: reads the capture time burned into each ${codec} picture from the canvas it is drawn on`,
      async () => {
        const f = await watch(codec);
        // Every picture carries its time, and the decoder keeps it readable.
        expect(f.unread).toBeLessThanOrEqual(f.drawn / 20);
        // The widget draws each picture for its own envelope: the burned time is the envelope's.
        expect(f.mislabelled).toBe(0);
        // Drawn after it arrived: glass to glass is never shorter than the envelope's age.
        expect(f.glassP50).toBeGreaterThanOrEqual(f.envelopeP50);
      },
      glassSeconds * 1000 + 60_000,
    );
  }

  it("saw no script error, CSP violation or missing asset", () => {
    expect(problems).toEqual([]);
  });
});
