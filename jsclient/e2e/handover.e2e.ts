// Handing control over, in two real browsers signed in as two people against the real local
// gateway: an operator and the organization admin. Asking, granting, refusing, the 15 s
// silence that refuses, and the admin's override, with each page saying who drives, who asks
// and who took control.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, problems, shot, type Fleet } from "./harness.js";
import { drive, holderLine, operatorEmail, twoOperators, widgetState as data } from "./handover-harness.js";

let fleet: Fleet;
let admin: { context: BrowserContext; page: Page };
let operator: { context: BrowserContext; page: Page };
let robot = "";

beforeAll(async () => {
  ({ fleet, admin, operator, robot } = await twoOperators("agent"));
});

afterAll(async () => {
  await fleet?.stop();
});

async function takeControl(page: Page): Promise<void> {
  await page.click(`${drive} button[data-action=take]`);
  await eventually(async () => (await data(page)).control === "held" && (await data(page)).state === "live", "control taken");
}

/** The page sees that another operator holds the robot, and its buttons to ask (and take over). */
async function seesHolder(page: Page, who: string): Promise<void> {
  await eventually(async () => (await data(page)).heldBy === who && (await page.isVisible(`${drive} button[data-action=ask]`)), `${who} drives, and a way to ask`);
}

describe("handing control over", () => {
  it("an operator asks the admin, who sees who and since when and hands over; the old holder's keys stop counting", async () => {
    await admin.page.goto(`/robots/${robot}`);
    await operator.page.goto(`/robots/${robot}`);
    await takeControl(admin.page);
    await seesHolder(operator.page, "admin@localhost");
    // An operator is offered no override.
    expect(await operator.page.isVisible(`${drive} button[data-action=override]`)).toBe(false);

    // The holder keeps a key held while asked.
    await admin.page.focus(drive);
    await admin.page.keyboard.down("ArrowUp");
    await eventually(async () => Number((await data(admin.page)).command?.split(",")[0]) > 0, "the admin driving forward");
    await operator.page.click(`${drive} button[data-action=ask]`);
    await eventually(async () => /Asked admin@localhost for control/.test(await holderLine(operator.page)), "the asker waiting");
    expect((await data(operator.page)).control).toBe("asking");
    const box = admin.page.locator(`${drive} .teleop-request`);
    await eventually(async () => (await box.isVisible()) && /ops@example.com asks for control \(since \d/.test((await box.textContent()) ?? ""), "the request: who, since when");
    await shot(admin.page, "40-handover-requested");
    await admin.page.click(`${drive} .teleop-request button[data-action=grant]`);

    await eventually(async () => (await data(operator.page)).control === "held", "the asker drives");
    const old = await eventually(async () => {
      const d = await data(admin.page);
      return d.control === "released" && d;
    }, "the old holder released");
    expect(old.command).toBe("0.00,0.00");
    await eventually(async () => /Not driving: control of base\/cmd_vel handed to ops@example.com/.test(await holderLine(admin.page)), "the old holder told to whom");
    // The key still down on the old holder's page drives nothing: its page sends nothing more.
    const sent = Number((await data(admin.page)).sent);
    await new Promise((r) => setTimeout(r, 500));
    expect(Number((await data(admin.page)).sent)).toBe(sent);
    await admin.page.keyboard.up("ArrowUp");
    // The new holder starts from zero.
    expect((await data(operator.page)).command ?? "0.00,0.00").toBe("0.00,0.00");
    await eventually(async () => /You drive since/.test(await holderLine(operator.page)), "you drive");
    await shot(operator.page, "41-handover-granted");
  });

  it("a refusal leaves the holder driving, and the asker is told who refused", async () => {
    await seesHolder(admin.page, operatorEmail);
    await admin.page.click(`${drive} button[data-action=ask]`);
    const box = operator.page.locator(`${drive} .teleop-request`);
    await eventually(async () => box.isVisible(), "the request shown to the holder");
    await operator.page.click(`${drive} .teleop-request button[data-action=refuse]`);
    await eventually(async () => /Not driving: ops@example.com refused to hand over control/.test(await holderLine(admin.page)), "the refusal in words");
    expect((await data(operator.page)).control).toBe("held");
    expect(await box.isVisible()).toBe(false);
  });

  it("no answer in 15 s refuses", async () => {
    await seesHolder(admin.page, operatorEmail);
    await admin.page.click(`${drive} button[data-action=ask]`);
    const box = operator.page.locator(`${drive} .teleop-request`);
    await eventually(async () => /refused in 1[0-5] s without an answer/.test((await box.textContent()) ?? ""), "the countdown");
    await eventually(
      async () => /Not driving: ops@example.com did not answer within 15s: refused/.test(await holderLine(admin.page)),
      "refused after 15 s of silence",
      25_000,
    );
    await eventually(async () => !(await box.isVisible()) && /request went unanswered: refused/.test(await holderLine(operator.page)), "the holder told");
    expect((await data(operator.page)).control).toBe("held");
  });

  it("the organization admin takes over: the holder's page says who took it", async () => {
    await seesHolder(admin.page, operatorEmail);
    await operator.page.focus(drive);
    await operator.page.keyboard.down("ArrowLeft");
    await eventually(async () => Number((await data(operator.page)).command?.split(",")[1]) !== 0, "the operator turning");
    await admin.page.click(`${drive} button[data-action=override]`);
    await eventually(async () => (await data(admin.page)).control === "held", "the admin drives");
    await eventually(
      async () => /Not driving: control of base\/cmd_vel taken by admin@localhost \(supervisor override\)/.test(await holderLine(operator.page)),
      "the previous holder told who took it",
    );
    const d = await data(operator.page);
    expect(d.control).toBe("released");
    expect(d.command).toBe("0.00,0.00");
    await operator.page.keyboard.up("ArrowLeft");
    await shot(operator.page, "42-handover-overridden");
    await admin.page.click(`${drive} button[data-action=stop]`);
    const events = await admin.context.request.get(`/panel/api/events?robotId=${robot}&type=teleop&limit=50`);
    const { events: list } = (await events.json()) as { events: { message: string; author: string }[] };
    expect(list.some((e) => e.author === "admin@localhost" && /took control \(supervisor override, from ops@example.com\)/.test(e.message))).toBe(true);
    expect(list.some((e) => e.author === "ops@example.com" && /took control \(granted by admin@localhost\)/.test(e.message))).toBe(true);
  });

  it("left no script errors or CSP violations", () => {
    expect(problems).toEqual([]);
  });
});
