// REST from another origin: a dashboard served on a second origin logs in and lists robots
// from the cloud in Chromium, because the cloud runs with --cors-origin naming it; a page of
// a third origin cannot, and no page of another origin reads anything with the panel's
// cookie. The pages are served by Node on their own loopback ports (another port is another
// origin).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, eventually, problems, signIn, startFleet, type Fleet } from "./harness.js";

let fleet: Fleet;
let dashboard: Server;
let stranger: Server;
let context: BrowserContext;

/** A server of one small page, on a free loopback port. */
async function servePage(title: string): Promise<Server> {
  const s = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1></body></html>`);
  });
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return s;
}

const originOf = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

beforeAll(async () => {
  dashboard = await servePage("dashboard");
  stranger = await servePage("stranger");
  fleet = await startFleet({ cloudArgs: ["--cors-origin", originOf(dashboard)] });
  // The browser has a panel session on the cloud: its cookie must not help any other origin.
  ({ context } = await signIn(fleet.browser, fleet.cloud));
});

afterAll(async () => {
  await fleet?.stop();
  for (const s of [dashboard, stranger]) await new Promise((resolve) => s?.close(resolve));
});

/** What a page's script gets from fetch: the status and body, or the error a browser gives when CORS refuses. */
type Outcome = { status: number; body: string } | { error: string };

async function fetchFrom(page: Page, url: string, init: { method?: string; headers?: Record<string, string>; body?: string; credentials?: RequestCredentials }): Promise<Outcome> {
  return page.evaluate(
    async ([url, init]) => {
      try {
        const r = await fetch(url, init);
        return { status: r.status, body: await r.text() };
      } catch (e) {
        return { error: String(e) };
      }
    },
    [url, init] as const,
  );
}

async function login(page: Page): Promise<Outcome> {
  return fetchFrom(page, `${fleet.cloud}/apigateway/v2/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ userToken: adminToken }),
  });
}

describe("REST from another origin", () => {
  it("a dashboard on the origin --cors-origin names logs in and lists robots with a bearer token, never with the panel's cookie", async () => {
    const page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
    try {
      await page.goto(originOf(dashboard) + "/");
      const loggedIn = await login(page);
      expect(loggedIn).toMatchObject({ status: 200 });
      const bearer = JSON.parse((loggedIn as { body: string }).body).token as string;
      expect(bearer).toMatch(/^bearer fgb_/);

      // The robot list with the bearer (a preflighted request: it sends authorization). The
      // agent's two simulated robots are listed once its link is up.
      const robots = await eventually(async () => {
        const r = await fetchFrom(page, `${fleet.cloud}/apigateway/v2/robots`, { headers: { authorization: bearer } });
        if (!("status" in r) || r.status !== 200) throw new Error(JSON.stringify(r));
        const list = (JSON.parse(r.body) as { robotDataList: { basicData: { name: string }; isOnline: boolean }[] }).robotDataList;
        return list.filter((x) => x.isOnline).length >= 2 && list;
      }, "the robots listed to the dashboard", 20_000);
      expect(robots.map((r) => r.basicData.name).sort()).toEqual(["sim-1", "sim-2"]);

      // A 401 is readable too, so the dashboard knows to log in again.
      expect(await fetchFrom(page, `${fleet.cloud}/apigateway/v2/robots`, { headers: { authorization: "bearer fgb_wrong" } })).toMatchObject({ status: 401 });

      // Never with cookies: asking with credentials is refused by the browser (no
      // Access-Control-Allow-Credentials), and the panel's browser API, which reads the
      // session cookie, stays same-origin.
      expect(await fetchFrom(page, `${fleet.cloud}/apigateway/v2/robots`, { headers: { authorization: bearer }, credentials: "include" })).toHaveProperty("error");
      expect(await fetchFrom(page, `${fleet.cloud}/panel/api/robots`, { credentials: "include" })).toHaveProperty("error");
      // The same request from the cloud's own panel page works: the refusal above is the origin's.
      const own = await context.newPage();
      try {
        await own.goto(fleet.cloud + "/");
        expect(await fetchFrom(own, "/panel/api/robots", { credentials: "same-origin" })).toMatchObject({ status: 200 });
      } finally {
        await own.close();
      }
    } finally {
      await page.close();
    }
  });

  it("a page of an origin --cors-origin does not name cannot read the API", async () => {
    const page = await context.newPage();
    try {
      await page.goto(originOf(stranger) + "/");
      expect(await login(page)).toHaveProperty("error");
      expect(await fetchFrom(page, `${fleet.cloud}/apigateway/v2/robots`, {})).toHaveProperty("error");
    } finally {
      await page.close();
    }
  });

  it("saw no page problem", () => {
    expect(problems).toEqual([]);
  });
});
