// A recording played in the robot's page, on both gateways: the simulator's camera, pose,
// scan, depth cloud and map are recorded for a few seconds while an event is posted; the
// recording's page on the local gateway (the agent's file) and on the cloud (its archived
// copy) reads the MCAP file through range requests, shows the event as a marker, and a click
// on the marker shows the camera frame of that moment: the newest frame at or before the
// event's time, as @mcap/core in Node finds it in the same file. A shared link to the moment
// opens there again; play at 4x moves on.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { McapIndexedReader, type McapTypes } from "@mcap/core";
import { loadDecompressHandlers } from "@mcap/support";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, problems, shot, signIn, startFleet, type Fleet } from "./harness.js";

let fleet: Fleet;
let robotId = "";
let recordingId = "";
let eventMs = 0;
/** The publish time (ms) of the newest camera frame at or before the event, from the file. */
let frameAtEvent = 0;
/** The camera's frame period in the file (ms): the median gap between frames. */
let period = 0;
/** The time between the shown frame and the next one in the file (ms): its own frame period. */
let frameGap = 0;

interface Recording {
  id: string;
  recorderState: string;
  messages: number;
}

async function inPage<T>(page: Page, path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
  return page.evaluate(
    async ([path, method, body]) => {
      const r = await fetch(path, {
        method,
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : null };
    },
    [path, init.method ?? "GET", init.body] as const,
  );
}

/** The MCAP file as bytes, through the panel's download (the browser's session). */
async function downloadFile(page: Page): Promise<Uint8Array> {
  const b64 = await page.evaluate(async (p) => {
    const link = (await (await fetch(p, { credentials: "same-origin" })).json()) as { url: string };
    const u = new URL(link.url);
    const buf = new Uint8Array(await (await fetch(u.pathname + u.search)).arrayBuffer());
    let s = "";
    for (let i = 0; i < buf.length; i += 0x8000) s += String.fromCharCode(...buf.subarray(i, i + 0x8000));
    return btoa(s);
  }, `/panel/api/robots/${robotId}/resource/${recordingId}/download`);
  return new Uint8Array(Buffer.from(b64, "base64"));
}

async function cameraFrames(file: Uint8Array): Promise<McapTypes.Message[]> {
  const reader = await McapIndexedReader.Initialize({
    readable: { size: async () => BigInt(file.length), read: async (o, s) => file.subarray(Number(o), Number(o + s)) },
    decompressHandlers: await loadDecompressHandlers(),
  });
  const out: McapTypes.Message[] = [];
  for await (const m of reader.readMessages({ topics: ["/camera/image"] })) out.push(m);
  return out;
}

const ms = (ns: bigint) => Number(ns / 1000n) / 1000;

beforeAll(async () => {
  fleet = await startFleet();
  const { context, page } = await signIn(fleet.browser, fleet.agent);
  try {
    await page.goto("/");
    const ids = await eventually(
      () => page.$$eval("#robot-table tr[data-robot-id]", (trs) => trs.map((tr) => (tr as HTMLElement).dataset.robotId!)),
      "the robots listed",
    );
    robotId = ids[0]!;
    const streams = ["camera/image", "base/pose", "lidar/scan", "depth/points", "map/map"];
    // A rate cap above every stream's rate keeps the camera on JPEG, each frame a picture of its
    // own time; an H.264 recording is played in video.e2e.ts.
    const started = await inPage<Recording>(page, `/panel/api/robots/${robotId}/recordings`, {
      method: "POST",
      body: { streams, durationSeconds: 6, maxRate: 200 },
    });
    expect(started.status).toBe(201);
    recordingId = started.body.id;
    // The event comes once the recording holds a couple of seconds of camera frames.
    await eventually(async () => {
      const r = await inPage<{ recordings: Recording[] }>(page, `/panel/api/robots/${robotId}/recordings`);
      return r.body.recordings.find((x) => x.id === recordingId)!.messages > 80;
    }, "the recording under way");
    const message = `pallet dropped ${Date.now()}`;
    const posted = await inPage(page, `/panel/api/events/log?${new URLSearchParams({ robotId, message })}`, { method: "POST" });
    expect(posted.status).toBe(200);
    const events = await inPage<{ events: { time: string; message: string }[] }>(page, `/panel/api/events?${new URLSearchParams({ robotId, q: message })}`);
    eventMs = Date.parse(events.body.events[0]!.time);
    await eventually(
      async () => {
        const r = await inPage<{ recordings: Recording[] }>(page, `/panel/api/robots/${robotId}/recordings`);
        return r.body.recordings.find((x) => x.id === recordingId)!.recorderState === "Stopped";
      },
      "the recording finished",
      20_000,
    );
    const frames = await cameraFrames(await downloadFile(page));
    // The frame of the event's time: the last one taken at or before it (its publish time,
    // the header's stamp; the recorder gets it tens of ms later), as a reader of the file finds it.
    const taken = frames.map((m) => ms(m.publishTime)).sort((a, b) => a - b);
    const k = taken.findLastIndex((t) => t <= eventMs);
    frameAtEvent = Math.floor(taken[k]!); // the widget shows whole milliseconds
    const gaps = taken.slice(1).map((t, i) => t - taken[i]!);
    period = [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)]!;
    frameGap = taken[k + 1]! - taken[k]!;
    // The figures go to the log (docs/recordings.md quotes them).
    console.log(`camera: median period ${period.toFixed(1)} ms; the event ${(eventMs - taken[k]!).toFixed(1)} ms after the shown frame was taken, the next ${frameGap.toFixed(1)} ms after it`);
  } finally {
    await context.close();
  }
});

afterAll(async () => {
  await fleet?.stop();
  expect(problems).toEqual([]);
});

const data = (page: Page, sel: string) => page.$eval(sel, (el) => ({ ...(el as HTMLElement).dataset }));

/** Opens the recording's page on base, waits for the player and its marker, and clicks it. */
async function seekToMarker(base: string, name: string): Promise<Page> {
  const { page } = await signIn(fleet.browser, base);
  const ranges: number[] = [];
  page.on("response", (r) => {
    if (r.url().includes(`/files/${recordingId}`)) ranges.push(r.status());
  });
  // The cloud lists the recording once its copy is whole, and has the entry once the agent
  // forwarded it: until then the page is opened again.
  const marker = await eventually(
    async () => {
      const r = await page.goto(`/robots/${robotId}/recordings/${recordingId}`);
      if (r?.status() !== 200) return null;
      const markers = await eventually(async () => (await data(page, ".player")).markers, "the player's markers", 20_000);
      return Number(markers) >= 1 && page.$(".player-marker");
    },
    "the recording's page with the event's marker",
    40_000,
  );
  expect((await data(page, ".player")).state).toBe("ready");
  expect(Number(await marker!.getAttribute("data-time"))).toBe(eventMs);
  expect(await marker!.getAttribute("aria-label")).toMatch(/pallet dropped/);
  await marker!.click();
  await eventually(async () => Number((await data(page, ".player")).position) === eventMs, "the playhead at the event");
  const cam = ".player-camera [data-widget=camera]";
  await eventually(
    async () => Number((await data(page, cam)).frameTime) === frameAtEvent,
    `the camera frame of the event's time (${frameAtEvent}, the event at ${eventMs})`,
    10_000,
  ).catch(async (e: Error) => {
    throw new Error(`${e.message}; the widget shows the frame of ${(await data(page, cam)).frameTime}`);
  });
  await eventually(() => page.$eval(`${cam} .widget-status`, (e) => e.textContent!.includes("frame of ")), "the frame's time in words");
  await eventually(async () => Number((await data(page, ".player-pose-map [data-widget=pose-map]")).frames) >= 1, "the pose on the map");
  await eventually(async () => Number((await data(page, ".player-laserscan [data-widget=laserscan]")).frames) >= 1, "the scan");
  await eventually(() => page.$eval(".player-pose-map canvas", (c) => Boolean((c as HTMLElement).dataset.grid)), "the recorded map");
  // The file was read in parts, never whole.
  expect(ranges.length).toBeGreaterThan(0);
  expect(ranges.every((s) => s === 206)).toBe(true);
  await shot(page, name);
  return page;
}

describe("playing a recording", () => {
  it("on the local gateway: the marker of an event posted while recording shows the camera frame of that time; a shared link opens the moment; 4x plays on to the end", async () => {
    const page = await seekToMarker(fleet.agent, "playback-agent");
    // The newest frame at or before the event, within one frame period of it: the camera's
    // period there (a loaded machine stretches one now and then), and at most a second.
    expect(eventMs - frameAtEvent).toBeGreaterThanOrEqual(0);
    expect(eventMs - frameAtEvent).toBeLessThanOrEqual(frameGap + 1);
    expect(eventMs - frameAtEvent).toBeLessThan(1000);

    await page.click(".player-share");
    const link = await page.$eval(".player-link", (e) => (e as HTMLInputElement).value);
    expect(link).toContain(`/robots/${robotId}/recordings/${recordingId}?t=${encodeURIComponent(new Date(eventMs).toISOString())}`);
    const shared = await page.context().newPage();
    await shared.goto(link);
    await eventually(async () => Number((await data(shared, ".player")).position) === eventMs, "the shared moment", 20_000);
    await eventually(async () => Number((await data(shared, ".player-camera [data-widget=camera]")).frameTime) === frameAtEvent, "the shared moment's frame");

    await shared.close();
    await page.bringToFront(); // a hidden tab's timers run once a second
    await page.selectOption(".player-speed", "4");
    const frames = Number((await data(page, ".player-camera [data-widget=camera]")).frames);
    await page.click(".player-play");
    await eventually(async () => Number((await data(page, ".player")).position) > eventMs + 1000, "4x playing on");
    // Later frames are shown (how many a loaded machine draws at 4x is not the point).
    await eventually(async () => {
      const cam = await data(page, ".player-camera [data-widget=camera]");
      return Number(cam.frames) > frames && Number(cam.frameTime) > frameAtEvent + 500;
    }, "later frames played").catch(async (e: Error) => {
      throw new Error(`${e.message}: ${frames} frames before; ${JSON.stringify(await data(page, ".player-camera [data-widget=camera]"))}; ${JSON.stringify(await data(page, ".player"))}`);
    });
    // It stops at the end by itself (pause is the unit tests').
    await eventually(async () => !(await data(page, ".player")).playing && (await page.textContent(".player-play")) === "Play", "stopped at the end", 20_000);

    // Accessible as every page (operate.e2e.ts): no serious or critical axe-core violation.
    // axe is injected, which the page's CSP refuses: this context bypasses it.
    const ctx = await fleet.browser.newContext({ baseURL: fleet.agent, bypassCSP: true, storageState: await page.context().storageState() });
    await page.context().close();
    const ap = await ctx.newPage();
    await ap.goto(`/robots/${robotId}/recordings/${recordingId}?t=${encodeURIComponent(new Date(eventMs).toISOString())}`);
    await eventually(async () => Number((await data(ap, ".player")).markers) >= 1, "the player with its marker", 20_000);
    await ap.addScriptTag({ content: readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8") });
    const violations = (await ap.evaluate(async () => {
      const w = window as unknown as { axe: { run: (d: Document) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } };
      return (await w.axe.run(document)).violations;
    })) as { id: string; impact: string; nodes: { target: string[] }[] }[];
    const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.impact} ${v.id} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    expect(serious).toEqual([]);
    await ctx.close();
  }, 180_000);

  it("on the cloud, from its archived copy, the same", async () => {
    const page = await seekToMarker(fleet.cloud, "playback-cloud");
    await page.context().close();
  }, 180_000);
});
