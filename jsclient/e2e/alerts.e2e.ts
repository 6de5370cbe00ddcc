// Alerts an operator acts on, in a real browser against the real gateways: an alert
// acknowledged on the operate screen (its age before, who after), the kiosk wall's text at
// 1920x1080 (no computed font size under 28 px), its 24-hour clock in the site's zone and its
// sound switch, and the operate screen of a robot whose agent is down (offline, since when).
// The agent runs with --alert-battery 99, so every simulated robot shows a battery alert.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, problems, shot, signIn, startFleet, type Fleet } from "./harness.js";

let fleet: Fleet;
let robot = "";

beforeAll(async () => {
  fleet = await startFleet({ agentArgs: ["--alert-battery", "99", "--timezone", "Europe/Berlin"] });
  const { context, page } = await signIn(fleet.browser, fleet.agent);
  await page.goto("/");
  robot = await eventually(async () => page.$eval("#robot-table tr[data-robot-id]", (tr) => (tr as HTMLElement).dataset.robotId!).catch(() => ""), "a robot listed");
  await context.close();
});

afterAll(async () => {
  await fleet?.stop();
});

describe("alerts", () => {
  it("acknowledges an alert on the operate screen: its age unacknowledged, then who acknowledged it", async () => {
    const { context, page } = await signIn(fleet.browser, fleet.agent);
    try {
      await page.goto(`/robots/${robot}`);
      const alert = page.locator(`#op-status li[data-alert="battery"]`);
      await eventually(async () => (await alert.locator("button.ack").count()) === 1, "the battery alert with its Acknowledge button");
      expect(await alert.locator(".alert-age").textContent()).toMatch(/^for \d+ (s|min), unacknowledged$/);
      await shot(page, "alerts-01-unacknowledged");
      await Promise.all([page.waitForURL((u) => u.pathname === `/robots/${robot}`), alert.locator("button.ack").click()]);
      await eventually(async () => /acknowledged by admin@localhost at \d\d:\d\d:\d\d CE/.test((await page.textContent("#op-status")) ?? ""), "who acknowledged it");
      expect(await page.locator(`#op-status li[data-alert="battery"] button.ack`).count()).toBe(0);
      await shot(page, "alerts-02-acknowledged");
    } finally {
      await context.close();
    }
  });

  it("the kiosk at 1920x1080: no text under 28 px, a 24-hour clock in the site's zone, the count and a sound switch", async () => {
    const { context } = await signIn(fleet.browser, fleet.agent);
    const wall = await fleet.browser.newContext({ viewport: { width: 1920, height: 1080 }, baseURL: fleet.agent, storageState: await context.storageState() });
    await context.close();
    try {
      const page = await wall.newPage();
      await page.goto("/kiosk/local-fleet");
      await eventually(async () => (await page.locator(".kpi-tile").count()) >= 1, "the tiles");
      const small = await page.evaluate(() => {
        const out: string[] = [];
        for (const el of document.body.querySelectorAll<HTMLElement>("*")) {
          const text = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== "");
          if (!text || el.getClientRects().length === 0 || el.closest("[hidden]")) continue;
          const size = parseFloat(getComputedStyle(el).fontSize);
          if (size < 28) out.push(`${el.tagName.toLowerCase()}.${el.className}: ${size} px "${el.textContent!.trim().slice(0, 30)}"`);
        }
        return out;
      });
      expect(small).toEqual([]);
      const clock = await page.locator("[data-clock]");
      expect(await clock.getAttribute("data-timezone")).toBe("Europe/Berlin");
      const shown = (await clock.textContent()) ?? "";
      expect(shown).toMatch(/^\d\d:\d\d:\d\d$/);
      const berlin = new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Berlin", hour: "2-digit", hourCycle: "h23" }).format(new Date());
      expect(shown.slice(0, 2)).toBe(berlin);
      const sound = page.locator("[data-alert-sound]");
      expect(await sound.getAttribute("aria-pressed")).toBe("false");
      await sound.click();
      expect(await sound.getAttribute("aria-pressed")).toBe("true");
      await shot(page, "alerts-03-kiosk-1920");
    } finally {
      await wall.close();
    }
  });

  it("an offline robot's operate screen says it is offline, and since when", async () => {
    const { context, page } = await signIn(fleet.browser, fleet.cloud);
    try {
      await fleet.restartAgent(async () => {
        await eventually(async () => {
          await page.goto(`/robots/${robot}`);
          return /Offline since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+ \(\d+ s ago\): nothing to drive until it is back\./.test((await page.textContent("#operate")) ?? "");
        }, "the offline notice", 20_000);
        expect(await page.locator("#operate").textContent()).not.toContain("Nothing to drive here");
        await shot(page, "alerts-04-offline");
      });
    } finally {
      await context.close();
    }
  });

  it("saw no script error, CSP violation or missing asset", () => {
    expect(problems).toEqual([]);
  });
});
