// Glass to glass through the cloud (issue 31): the agent's simulated camera burns each
// picture's capture time into it (--sim-clock-strip), the cloud panel's camera widget decodes
// the picture (H.264 with WebCodecs, JPEG with createImageBitmap) and draws it, and the page
// reads the time back from the canvas as each frame is drawn. Beside it, each camera message's
// envelope age as the socket delivers it: what make bench-uplink measures. The figures are
// logged and written to test-artifacts/e2e/glass-*.json; FLEETGATE_GLASS_SECONDS (default 5)
// sets the window (the figures in docs/performance.md are from longer runs).
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { glassFigures, installGlassMeter, type GlassSamples } from "./clockstrip.js";
import { artifacts, eventually, problems, signIn, startFleet, type Fleet } from "./harness.js";

let fleet: Fleet;
let robot = "";
const seconds = Number(process.env.FLEETGATE_GLASS_SECONDS ?? 5);

beforeAll(async () => {
  fleet = await startFleet({ agentArgs: ["--sim-clock-strip"] });
  const { context, page } = await signIn(fleet.browser, fleet.cloud);
  await page.goto("/");
  robot = await eventually(
    () => page.$$eval("tr[data-robot-id]", (trs) => trs.find((tr) => tr.querySelector("a")?.textContent === "sim-1")?.getAttribute("data-robot-id")),
    "sim-1 listed on the cloud",
    30_000,
  );
  await context.close();
});

afterAll(async () => {
  await fleet?.stop();
});

const frames = (p: Page) => p.$eval("[data-widget=camera]", (el) => ({ codec: (el as HTMLElement).dataset.codec, frames: Number((el as HTMLElement).dataset.frames ?? 0) }));

/** Watches sim-1's camera on the cloud's panel for the window, H.264 where the page decodes it. */
async function watch(codec: "h264" | "jpeg") {
  const { context, page } = await signIn(fleet.browser, fleet.cloud);
  try {
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
    await eventually(async () => Date.now() - start >= seconds * 1000 && (await frames(page)).frames > 0, "the window", seconds * 1000 + 5_000);
    const samples = await page.evaluate(() => (window as unknown as { __glass: GlassSamples }).__glass);
    const figures = glassFigures(samples, (Date.now() - start) / 1000);
    console.log(`glass to glass through the cloud, ${codec}, ${seconds} s: ${JSON.stringify(figures)}`);
    writeFileSync(path.join(artifacts, `glass-${codec}.json`), JSON.stringify({ codec, seconds, figures, samples }, null, 1));
    return figures;
  } finally {
    await context.close();
  }
}

describe("glass to glass through the cloud", () => {
  for (const codec of ["h264", "jpeg"] as const) {
    it(
      `reads the capture time burned into each ${codec} picture from the canvas it is drawn on`,
      async () => {
        const f = await watch(codec);
        // Pictures to read (the simulator makes 15 a second; a loaded machine draws far fewer:
        // the rate is the figures' to say, not this test's).
        expect(f.drawn).toBeGreaterThanOrEqual(10);
        // Every picture carries its time, and the decoder keeps it readable.
        expect(f.unread).toBeLessThanOrEqual(f.drawn / 20);
        // The widget draws each picture for its own envelope: the burned time is the envelope's.
        expect(f.mislabelled).toBe(0);
        // Drawn after it arrived: glass to glass is never shorter than the envelope's age.
        expect(f.glassP50).toBeGreaterThanOrEqual(f.envelopeP50);
      },
      seconds * 1000 + 60_000,
    );
  }

  it("saw no script error, CSP violation or missing asset", () => {
    expect(problems).toEqual([]);
  });
});
