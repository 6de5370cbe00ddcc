// Handing control over through the cloud: two real browsers signed in on the cloud (the
// organization admin and an operator) drive a robot behind the agent link. The agent's door
// decides; the cloud carries the request, the notices and the answer. Asking and granting,
// and the admin's override, with each page saying who drives, who asks and who took control.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, problems, shot, type Fleet } from "./harness.js";
import { drive, holderLine, twoOperators, widgetState as data } from "./handover-harness.js";

let fleet: Fleet;
let admin: { context: BrowserContext; page: Page };
let operator: { context: BrowserContext; page: Page };
let robot = "";

beforeAll(async () => {
  ({ fleet, admin, operator, robot } = await twoOperators("cloud"));
});

afterAll(async () => {
  await fleet?.stop();
});

describe("handing control over through the cloud", () => {
  it("an operator on the cloud asks the admin on the cloud, who sees who and since when and hands over", async () => {
    await admin.page.goto(`/robots/${robot}`);
    await operator.page.goto(`/robots/${robot}`);
    await admin.page.click(`${drive} button[data-action=take]`);
    await eventually(async () => (await data(admin.page)).control === "held" && (await data(admin.page)).state === "live", "the admin drives");
    await eventually(
      async () => (await data(operator.page)).heldBy === "admin@localhost via the cloud" && (await operator.page.isVisible(`${drive} button[data-action=ask]`)),
      "the operator sees who drives, and a way to ask",
    );
    expect(await operator.page.isVisible(`${drive} button[data-action=override]`)).toBe(false);

    await admin.page.focus(drive);
    await admin.page.keyboard.down("ArrowUp");
    await eventually(async () => Number((await data(admin.page)).command?.split(",")[0]) > 0, "the admin driving forward");
    await operator.page.click(`${drive} button[data-action=ask]`);
    await eventually(async () => /Asked admin@localhost via the cloud for control/.test(await holderLine(operator.page)), "the asker waiting");
    const box = admin.page.locator(`${drive} .teleop-request`);
    await eventually(
      async () => (await box.isVisible()) && /ops@example.com via the cloud asks for control \(since \d/.test((await box.textContent()) ?? ""),
      "the request across the link: who, since when",
    );
    await shot(admin.page, "43-handover-cloud-requested");
    await admin.page.click(`${drive} .teleop-request button[data-action=grant]`);

    await eventually(async () => (await data(operator.page)).control === "held", "the asker drives");
    const old = await eventually(async () => {
      const d = await data(admin.page);
      return d.control === "released" && d;
    }, "the old holder released");
    expect(old.command).toBe("0.00,0.00");
    await eventually(
      async () => /Not driving: control of base\/cmd_vel handed to ops@example.com via the cloud/.test(await holderLine(admin.page)),
      "the old holder told to whom",
    );
    await admin.page.keyboard.up("ArrowUp");
    expect((await data(operator.page)).command ?? "0.00,0.00").toBe("0.00,0.00");
  });

  it("the organization admin takes over: the operator's page says who took it, and the event log has it", async () => {
    await eventually(async () => admin.page.isVisible(`${drive} button[data-action=override]`), "the admin offered an override");
    await operator.page.focus(drive);
    await operator.page.keyboard.down("ArrowLeft");
    await eventually(async () => Number((await data(operator.page)).command?.split(",")[1]) !== 0, "the operator turning");
    await admin.page.click(`${drive} button[data-action=override]`);
    await eventually(async () => (await data(admin.page)).control === "held", "the admin drives");
    await eventually(
      async () =>
        /Not driving: control of base\/cmd_vel taken by admin@localhost via the cloud \(supervisor override\)/.test(await holderLine(operator.page)),
      "the previous holder told who took it",
    );
    const d = await data(operator.page);
    expect(d.control).toBe("released");
    expect(d.command).toBe("0.00,0.00");
    await operator.page.keyboard.up("ArrowLeft");
    await shot(operator.page, "44-handover-cloud-overridden");
    await admin.page.click(`${drive} button[data-action=stop]`);
    // The agent's entry, forwarded to the cloud's event log.
    await eventually(async () => {
      const r = await admin.context.request.get(`/panel/api/events?robotId=${robot}&type=teleop&limit=50`);
      const { events } = (await r.json()) as { events: { message: string }[] };
      return events.some((e) => /took control \(supervisor override, from ops@example.com via the cloud\)/.test(e.message));
    }, "the override in the cloud's event log");
  });

  it("left no script errors or CSP violations", () => {
    expect(problems).toEqual([]);
  });
});
