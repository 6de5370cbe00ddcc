// What the handover suites share: a fleet with the organization admin and an operator signed
// in on one side (the local gateway, or the cloud in front of the agent), the robot with a
// Twist input both may drive, and readers of the operate screen's drive widget.
import type { BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import { eventually, signIn, signInOperator, startFleet, type Fleet } from "./harness.js";

export interface TwoOperators {
  fleet: Fleet;
  admin: { context: BrowserContext; page: Page };
  operator: { context: BrowserContext; page: Page };
  /** The robot with a Twist input stream. */
  robot: string;
}

export const operatorEmail = "ops@example.com";

/** Starts a fleet and signs the admin and an operator of the drivable robot in on side. */
export async function twoOperators(side: "agent" | "cloud"): Promise<TwoOperators> {
  const fleet = await startFleet();
  const base = side === "agent" ? fleet.agent : fleet.cloud;
  const admin = await signIn(fleet.browser, base);
  await admin.page.goto("/");
  const ids = await eventually(async () => {
    const rows = await admin.page.$$eval("#robot-table tr[data-robot-id]", (trs) => trs.map((tr) => (tr as HTMLElement).dataset.robotId!));
    return rows.length === 2 && rows;
  }, `the agent's two robots listed on the ${side}`);
  let robot = "";
  for (const id of ids) {
    const r = await admin.context.request.get(`/panel/api/robots/${id}/streams`);
    const { robotStreams } = (await r.json()) as { robotStreams: { streamType: string; direction: string }[] };
    if (robotStreams.some((s) => s.direction === "input" && s.streamType.endsWith(".Twist"))) robot = id;
  }
  expect(robot).not.toBe("");
  const operator = await signInOperator(fleet.browser, admin.page, base, robot, operatorEmail);
  return { fleet, admin, operator, robot };
}

/** The operate screen's drive widget. */
export const drive = "#op-drive";

/** The drive widget's state, as its data attributes say it. */
export const widgetState = (page: Page) => page.$eval(drive, (el) => ({ ...(el as HTMLElement).dataset }));

/** The widget's line about who holds the robot. */
export const holderLine = async (page: Page) => (await page.textContent(`${drive} .teleop-holder`)) ?? "";
