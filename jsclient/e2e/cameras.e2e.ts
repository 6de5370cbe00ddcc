// Cameras in the panel, in a real browser: an agent whose sim-1 has an RTSP camera (GStreamer's
// RTSP server, the same as the Go tests' peer), shown on the robot page, and a camera opened by
// its address from the robot page's form, with credentials (never in a URL), and with wrong ones.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, problems, shot, signIn, startFleet, type Fleet } from "./harness.js";

const script = "internal/source/camera/gstreamer/rtsp_server.py";
const servers: ChildProcess[] = [];

/** Starts GStreamer's RTSP server on a free port; its URL once it accepts connections. */
function rtspServer(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    // stdin stays a pipe: the server quits when it closes, so it never outlives the tests.
    const p = spawn("/usr/bin/python3", [script, ...args], { stdio: ["pipe", "pipe", "pipe"] });
    servers.push(p);
    let err = "";
    p.stderr!.on("data", (d) => (err += d));
    p.once("exit", (code) => reject(new Error(`the RTSP server exited (${code}): ${err}`)));
    createInterface({ input: p.stdout! }).once("line", (line) => {
      const port = /^ready (\d+)$/.exec(line.trim())?.[1];
      if (port) resolve(`rtsp://127.0.0.1:${port}/test`);
      else reject(new Error(`the RTSP server said ${line}: ${err}`));
    });
  });
}

let fleet: Fleet;
let page: Page;
let adhocURL = "";

beforeAll(async () => {
  const own = await rtspServer(["--codec", "h264", "--width", "320", "--height", "240", "--fps", "15"]);
  adhocURL = await rtspServer(["--codec", "mjpeg", "--width", "320", "--height", "240", "--fps", "15", "--user", "viewer", "--password", "pw-e2e"]);
  // The test's cameras are on loopback: only --camera-allow-private lets the form reach them.
  fleet = await startFleet({ agentArgs: ["--camera", `sim-1/dock=${own}`, "--camera-allow-private"] });
  ({ page } = await signIn(fleet.browser, fleet.agent));
});

afterAll(async () => {
  await fleet?.stop();
  for (const p of servers) p.kill("SIGKILL");
});

const cameraState = (sel: string) =>
  page.$eval(sel, (el) => ({ ...(el as HTMLElement).dataset, status: el.querySelector(":scope > .widget-status")?.textContent ?? "" }));

describe("cameras", () => {
  it("shows the robot's RTSP camera on its page", async () => {
    await page.goto("/");
    const id = await eventually(
      () => page.$$eval("tr[data-robot-id]", (trs) => trs.find((tr) => tr.querySelector("a")?.textContent === "sim-1")?.getAttribute("data-robot-id")),
      "sim-1 listed",
    );
    await page.goto(`/robots/${id}`);
    const sel = ".camera-card [data-widget=camera]";
    await eventually(async () => Number((await cameraState(sel)).frames) >= 3, "camera frames", 20_000);
    expect(await page.$eval(`${sel} canvas`, (c) => [(c as HTMLCanvasElement).width, (c as HTMLCanvasElement).height])).toEqual([320, 240]);
    expect(await page.textContent(".camera-card h3")).toContain("dock");
    await shot(page, "cameras-01-robot-page");
  });

  it("opens a camera by its address from the form, with its credentials, none in a URL", async () => {
    const socketURLs: string[] = [];
    page.on("websocket", (ws) => socketURLs.push(ws.url()));
    await page.fill(".camera-form input[name=url]", adhocURL);
    await page.fill(".camera-form input[name=username]", "viewer");
    await page.fill(".camera-form input[name=password]", "pw-e2e");
    await page.click(".camera-form button[type=submit]");
    const sel = "[data-widget=camera-form] [data-widget=camera]";
    await eventually(async () => Number((await cameraState(sel)).frames) >= 3, "frames of the camera opened by address", 20_000);
    // The credentials went in the socket's subprotocol: a refused upgrade's URL is printed
    // in the browser's console.
    const camera = socketURLs.filter((u) => u.includes("url="));
    expect(camera.length).toBeGreaterThan(0);
    for (const u of camera) expect(u).not.toMatch(/pw-e2e|viewer|username|password/);
    await shot(page, "cameras-02-opened-by-address");
  });

  it("says why a camera refuses wrong credentials", async () => {
    await page.fill(".camera-form input[name=password]", "not-the-password");
    await page.click(".camera-form button[type=submit]");
    const sel = "[data-widget=camera-form] [data-widget=camera]";
    await eventually(async () => /the camera refused the credentials/.test((await cameraState(sel)).status), "the refusal in words under the view", 20_000);
    await shot(page, "cameras-03-refused");
  });

  it("refuses an address that is not a camera's before any socket", async () => {
    await page.fill(".camera-form input[name=url]", "ftp://192.0.2.1/x");
    await page.click(".camera-form button[type=submit]");
    expect(await page.textContent("[data-camera-error]")).toMatch(/not a camera address/);
  });

  it("saw no script error, CSP violation or missing asset", () => {
    expect(problems).toEqual([]);
  });
});
