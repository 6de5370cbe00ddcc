// Goals on the operate screen, in a real browser against the real local gateway and its
// simulator: a goal clicked on the map is reached (the map and its line say how the robot gets
// on), and a second goal is cancelled by STOP (the robot stops, the line says cancelled).
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, problems, shot, signIn, startFleet, type Fleet } from "./harness.js";

let fleet: Fleet;
let session: { context: BrowserContext; page: Page };
let robot = "";

beforeAll(async () => {
  fleet = await startFleet();
  session = await signIn(fleet.browser, fleet.agent);
  const page = session.page;
  await page.goto("/");
  const ids = await eventually(async () => {
    const rows = await page.$$eval("#robot-table tr[data-robot-id]", (trs) => trs.map((tr) => (tr as HTMLElement).dataset.robotId!));
    return rows.length === 2 && rows;
  }, "two robots listed");
  for (const id of ids) {
    const r = await session.context.request.get(`/panel/api/robots/${id}/streams`);
    const { robotStreams } = (await r.json()) as { robotStreams: { streamType: string; direction: string; streamName: string }[] };
    const twist = robotStreams.some((s) => s.direction === "input" && s.streamType.endsWith(".Twist"));
    const goal = robotStreams.some((s) => s.direction === "input" && s.streamName === "goal" && s.streamType.endsWith(".PoseStamped"));
    if (twist && goal) robot = id;
  }
  expect(robot).not.toBe("");
});

afterAll(async () => {
  await fleet?.stop();
});

/** The robot's pose now, through the REST read of base/pose: x, y (metres), yaw (radians). */
async function pose(): Promise<{ x: number; y: number; yaw: number }> {
  const q = new URLSearchParams({ componentName: "base", streamName: "pose", source: "1" });
  const r = await session.context.request.get(`/panel/api/robots/${robot}/stream?${q}`);
  const doc = JSON.parse(((await r.json()) as { robotStream: string }).robotStream) as {
    pose: { position: { x?: number; y?: number }; orientation: { z?: number; w?: number } };
  };
  const { position: p, orientation: o } = doc.pose;
  return { x: p.x ?? 0, y: p.y ?? 0, yaw: 2 * Math.atan2(o.z ?? 0, o.w ?? 1) };
}

/** Clicks the map at world point (x, y), through the mapping the map last drew with. */
async function clickMap(page: Page, x: number, y: number): Promise<void> {
  const at = await page.$eval(
    "#op-map canvas.map",
    (c, [x, y]) => {
      const canvas = c as HTMLCanvasElement;
      const [minX, minY, scale, ox, oy, H] = (canvas.dataset.view ?? "").split(",").map(Number) as [number, number, number, number, number, number];
      const r = canvas.getBoundingClientRect();
      const px = ox + (x! - minX) * scale;
      const py = H - oy - (y! - minY) * scale;
      return { x: r.left + (px * r.width) / canvas.width, y: r.top + (py * r.height) / canvas.height };
    },
    [x, y],
  );
  await page.mouse.click(at.x, at.y);
}

const mapData = (page: Page) => page.$eval("#op-map", (el) => ({ ...(el as HTMLElement).dataset }));
const goalLine = async (page: Page) => (await mapData(page)).goalText ?? "";

describe("goals on the map", () => {
  it("a goal clicked on the map is reached; a second one is cancelled by STOP", async () => {
    const page = session.page;
    await page.goto(`/robots/${robot}`);
    await eventually(async () => (await page.locator("#op-map canvas.map[data-grid]").count()) === 1 && (await mapData(page)).goals === "1", "the map, taking goals");

    // Without control the map says so and sends nothing.
    const start = await pose();
    const ahead = { x: start.x + 2.5 * Math.cos(start.yaw), y: start.y + 2.5 * Math.sin(start.yaw) }; // open floor: the simulator starts robots so
    await clickMap(page, ahead.x, ahead.y);
    await eventually(async () => /Take control first/.test(await goalLine(page)), "a goal refused without control");
    expect((await mapData(page)).goalsSent).toBeUndefined();

    await page.click("#op-drive button[data-action=take]");
    await eventually(async () => (await page.$eval("#op-drive", (el) => (el as HTMLElement).dataset.control)) === "held", "control taken");
    await clickMap(page, ahead.x, ahead.y);
    const driving = await eventually(async () => {
      const t = (await page.textContent("#op-map .widget-status")) ?? "";
      return (await mapData(page)).goalState === "driving" && /live · driving to goal, \d+\.\d m left/.test(t) && t;
    }, "driving to the goal, said under the map");
    expect(Number(/(\d+\.\d) m left/.exec(driving)![1])).toBeLessThanOrEqual(2.6);
    await shot(page, "60-goal-driving");
    // Beyond the deadman's 500 ms: the page keeps the lease alive while the robot drives itself.
    await eventually(async () => (await mapData(page)).goalState === "reached" && (await goalLine(page)) === "goal reached", "the goal reached", 30_000);
    const there = await pose();
    expect(Math.hypot(there.x - ahead.x, there.y - ahead.y)).toBeLessThan(0.3);

    // A second goal, back to the start; STOP while the robot drives there.
    await clickMap(page, start.x, start.y);
    await eventually(async () => (await mapData(page)).goalState === "driving", "driving to the second goal");
    await eventually(async () => {
      const p = await pose();
      return Math.hypot(p.x - there.x, p.y - there.y) > 0.3;
    }, "the robot on its way back");
    await page.click(".teleop-stop-floating");
    await eventually(async () => (await mapData(page)).goalState === "cancelled" && /^goal cancelled/.test(await goalLine(page)), "the goal cancelled by STOP");
    // The robot stops: two reads a second apart find it where it was.
    const stopped = await eventually(async () => {
      const a = await pose();
      await page.waitForTimeout(1000);
      const b = await pose();
      return Math.hypot(a.x - b.x, a.y - b.y) < 0.01 && b;
    }, "the robot standing still");
    expect(Math.hypot(stopped.x - start.x, stopped.y - start.y)).toBeGreaterThan(0.3); // it did not go on to the goal
    expect((await page.$eval("#op-drive", (el) => (el as HTMLElement).dataset.control))).toBe("released");
    await shot(page, "61-goal-cancelled-by-stop");
    expect(problems).toEqual([]);
  });
});
