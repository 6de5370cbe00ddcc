// The e2e harness: builds the real binary, starts `fleetgate serve` and `fleetgate agent
// --sim 2` linked to it on free loopback ports with fresh data directories, and Debian's
// chromium through playwright-core. Everything it starts, it stops.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export const adminToken = "fgt_e2eE2Ee2eE2Ee2eE2Ee2eE2Ee2eE2Ee2";
export const artifacts = path.resolve("test-artifacts/e2e");

/** DESIGN section 10: software WebGL, and nothing that dials out of this closed network. */
const chromiumFlags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--enable-unsafe-swiftshader",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function waitHealthy(url: string, proc: ChildProcess, log: () => string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`exited with ${proc.exitCode}:\n${log()}`);
    try {
      const r = await fetch(url + "/healthz");
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} not healthy after ${ms} ms:\n${log()}`);
}

export interface Fleet {
  cloud: string;
  agent: string;
  browser: Browser;
  /** Stops the agent (SIGTERM) and calls back while it is down; then starts it again. */
  restartAgent(whileDown?: () => Promise<void>): Promise<void>;
  /**
   * Freezes the agent's process (SIGSTOP: its sockets stay open, it reads and sends nothing,
   * as a hung machine does) or lets it go on (SIGCONT).
   */
  freezeAgent(): void;
  thawAgent(): void;
  stop(): Promise<void>;
}

function terminate(p: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (p.exitCode !== null || p.signalCode !== null) return resolve();
    const kill = setTimeout(() => p.kill("SIGKILL"), 5000);
    p.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    p.kill("SIGTERM");
  });
}

/** agentArgs are added to the agent's command line (cameras, for one), cloudArgs to the cloud's. */
export async function startFleet(opts: { agentArgs?: string[]; cloudArgs?: string[] } = {}): Promise<Fleet> {
  const dir = mkdtempSync(path.join(tmpdir(), "fleetgate-e2e-"));
  const bin = path.join(dir, "fleetgate");
  // The binary embeds static/dist: bundle the current sources first (the same bytes as the
  // committed ones when they are fresh).
  execFileSync("node", ["jsclient/build.mjs"], { stdio: "inherit" });
  execFileSync("go", ["build", "-o", bin, "./cmd/fleetgate"], { stdio: "inherit" });
  // Every file's screenshots are kept: scripts/test.sh empties the folder before the run.
  mkdirSync(artifacts, { recursive: true });

  const procs: ChildProcess[] = [];
  const start = (args: string[], env: Record<string, string> = {}) => {
    const p = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    p.stdout!.on("data", (d) => (out += d));
    p.stderr!.on("data", (d) => (out += d));
    procs.push(p);
    return { p, log: () => out };
  };
  const stop = async (): Promise<void> => {
    await browser?.close().catch(() => undefined);
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGCONT"); // a frozen one cannot act on SIGTERM
    await Promise.all(procs.map(terminate));
    rmSync(dir, { recursive: true, force: true });
  };

  let browser: Browser | undefined;
  try {
    const [cloudPort, agentPort] = [await freePort(), await freePort()];
    const cloud = `http://127.0.0.1:${cloudPort}`;
    const agent = `http://127.0.0.1:${agentPort}`;
    const c = start(["serve", "--data", path.join(dir, "cloud"), "--listen", `127.0.0.1:${cloudPort}`, "--admin-token", adminToken, ...(opts.cloudArgs ?? [])]);
    await waitHealthy(cloud, c.p, c.log);
    const key = execFileSync(bin, ["agents", "add", "--data", path.join(dir, "cloud"), "--name", "e2e"], { encoding: "utf8" });
    const agentKey = /fga_\S+/.exec(key)?.[0];
    if (!agentKey) throw new Error(`no agent key in: ${key}`);
    const startAgent = async () => {
      const a = start(
        ["agent", "--data", path.join(dir, "agent"), "--listen", `127.0.0.1:${agentPort}`, "--sim", "2", "--cloud", cloud, "--admin-token", adminToken, ...(opts.agentArgs ?? [])],
        { FLEETGATE_AGENT_KEY: agentKey },
      );
      await waitHealthy(agent, a.p, a.log);
      return a.p;
    };
    let agentProc = await startAgent();
    const restartAgent = async (whileDown?: () => Promise<void>) => {
      await terminate(agentProc);
      await whileDown?.();
      agentProc = await startAgent();
    };
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: chromiumFlags });
    const freezeAgent = () => void agentProc.kill("SIGSTOP");
    const thawAgent = () => void agentProc.kill("SIGCONT");
    return { cloud, agent, browser, restartAgent, freezeAgent, thawAgent, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** A robot's odometry now, through the panel's REST read (ctx is signed in): x, y, yaw, v, w. */
export async function odometry(ctx: BrowserContext, robot: string): Promise<{ x: number; y: number; yaw: number; v: number; w: number }> {
  const q = new URLSearchParams({ componentName: "base", streamName: "odom", source: "1", streamType: "Platform.Messages.nav_msgs.Odometry" });
  const r = await ctx.request.get(`/panel/api/robots/${robot}/stream?${q}`);
  if (r.status() !== 200) throw new Error(`reading ${robot}'s odometry: ${r.status()}`);
  const o = JSON.parse(((await r.json()) as { robotStream: string }).robotStream);
  const p = o.pose?.pose ?? {};
  const q4 = p.orientation ?? {};
  const t = o.twist?.twist ?? {};
  return {
    x: p.position?.x ?? 0,
    y: p.position?.y ?? 0,
    yaw: Math.atan2(2 * ((q4.w ?? 1) * (q4.z ?? 0)), 1 - 2 * (q4.z ?? 0) ** 2),
    v: t.linear?.x ?? 0,
    w: t.angular?.z ?? 0,
  };
}

/**
 * Holds a key as a person does: one keydown, then auto-repeats, until release (a keyup) or
 * stopRepeating (no keyup: the repeats just stop, as when another window takes the keyboard).
 * The press and the release go through DevTools; the repeats are the page's key repeater's
 * (repeatKeys): sent one by one from this process they came up to 950 ms apart on a loaded
 * machine, past the page's 450 ms bound for a held key (teleop/keys.ts), and the key let go
 * under a test that meant to hold it. page is one of signIn's.
 */
export function holdKey(page: Page, key: string) {
  const pressed = (async () => {
    const armed = await page.evaluate(() => {
      const r = (window as unknown as { __keyRepeater?: { armed: boolean } }).__keyRepeater;
      if (r) r.armed = true;
      return r !== undefined;
    });
    if (!armed) throw new Error("holdKey: the page has no key repeater (a page of signIn's has)");
    await page.keyboard.down(key);
  })();
  const stopRepeating = async () => {
    await pressed;
    await page.evaluate(() => {
      (window as unknown as { __keyRepeater: { held: unknown } }).__keyRepeater.held = null;
    });
  };
  return {
    stopRepeating,
    release: async () => {
      await stopRepeating();
      await page.keyboard.up(key);
    },
  };
}

/**
 * A page script that repeats the key holdKey pressed, at a browser's rate (every 33 ms), to the
 * element with focus, as the browser's own repeats go. A browser hands a repeat that came
 * while the page was busy to the page before its next frame's callbacks, where the teleop
 * widget asks which keys are held; so the repeater runs first in every frame (its callback is
 * the page's first: the script runs before the page's own), and on a timer between frames.
 */
function repeatKeys(): void {
  const r = { armed: false, held: null as { key: string; code: string } | null, last: 0 };
  (window as unknown as { __keyRepeater: typeof r }).__keyRepeater = r;
  addEventListener(
    "keydown",
    (ev) => {
      if (!r.armed || !ev.isTrusted || ev.repeat) return;
      r.armed = false;
      r.held = { key: ev.key, code: ev.code };
      r.last = performance.now();
    },
    true,
  );
  const repeat = () => {
    if (!r.held || performance.now() - r.last < 33) return;
    r.last = performance.now();
    (document.activeElement ?? document.body).dispatchEvent(new KeyboardEvent("keydown", { ...r.held, repeat: true, bubbles: true, cancelable: true }));
  };
  const frame = () => {
    repeat();
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  setInterval(repeat, 33);
}

/**
 * Gives the pages of context a standard gamepad the test moves: window.__pad.axes (left stick
 * x, y; up is -1) and window.__pad.pressed (the buttons held; 4 is the deadman).
 */
export async function stubGamepad(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const w = window as unknown as { __pad: { axes: number[]; pressed: number[] } };
    w.__pad = { axes: [0, 0, 0, 0], pressed: [] };
    const pad = () => ({
      id: "e2e pad (STANDARD GAMEPAD)",
      index: 0,
      connected: true,
      mapping: "standard",
      timestamp: performance.now(),
      axes: w.__pad.axes.slice(),
      buttons: Array.from({ length: 17 }, (_, i) => ({ pressed: w.__pad.pressed.includes(i), touched: false, value: w.__pad.pressed.includes(i) ? 1 : 0 })),
    });
    Object.defineProperty(navigator, "getGamepads", { value: () => [pad(), null, null, null], configurable: true });
  });
}

/** Script errors, CSP violations and missing assets seen by any page; the tests end by checking it is empty. */
export const problems: string[] = [];

/** A browser context signed in with the admin's API token through the login form; its pages repeat holdKey's keys. */
export async function signIn(browser: Browser, base: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: base });
  await context.addInitScript(repeatKeys);
  const page = await context.newPage();
  page.on("pageerror", (e) => problems.push(`page error on ${page.url()}: ${e.message}`));
  page.on("console", (m) => {
    // The CSP allows only our nonce'd module and 'self': any violation is a bug of the bundle.
    if (m.type() === "error" && /Content Security Policy|Refused to/.test(m.text())) problems.push(`${page.url()}: ${m.text()}`);
    // Nothing in the console shows a token: not an API, socket or agent token, not a URL with one.
    if (/fg[twa]_[A-Za-z0-9]|access_token|fleetgate\.token\./.test(m.text())) problems.push(`token in the console of ${page.url()}: ${m.text()}`);
  });
  page.on("response", (r) => {
    if (r.status() === 404 && r.url().includes("/static/")) problems.push(`404 ${r.url()}`);
  });
  await page.goto("/login");
  await shot(page, "00-login");
  await page.fill("input[name=token]", adminToken);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith("/login")), page.click("form:has(input[name=token]) button[type=submit]")]);
  return { context, page };
}

/**
 * The admin (signed in on adminPage) creates an operator of robot on the admin page of base; a
 * second browser signs in there as them (choosing a new password when asked).
 */
export async function signInOperator(
  browser: Browser,
  adminPage: Page,
  base: string,
  robot: string,
  email: string,
): Promise<{ context: BrowserContext; page: Page }> {
  await adminPage.goto(`${base}/admin`);
  await adminPage.fill("form[action='/admin/users'] input[name=email]", email);
  await Promise.all([adminPage.waitForURL(/\/admin/), adminPage.click("form[action='/admin/users'] button[type=submit]")]);
  const password = ((await adminPage.textContent("#secret")) ?? "").trim();
  if (password === "") throw new Error("the admin page showed no password for the new user");
  const members = adminPage.locator(`form[action='/admin/robots/${robot}/members']`);
  await members.locator("input[name=email]").fill(email);
  await members.locator("select[name=role]").selectOption("1");
  await Promise.all([adminPage.waitForURL(/\/admin/), members.locator("button[type=submit]").click()]);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: base });
  const p = await context.newPage();
  p.on("pageerror", (e) => problems.push(`page error on ${p.url()}: ${e.message}`));
  await p.goto("/login");
  await p.fill("input[name=email]", email);
  await p.fill("input[name=password]", password);
  await Promise.all([p.waitForURL((u) => !u.pathname.startsWith("/login")), p.click("form:has(input[name=password]) button[type=submit]")]);
  if (new URL(p.url()).pathname === "/password") {
    await p.fill("input[name=current]", password);
    await p.fill("input[name=new]", "a new password of ops");
    await Promise.all([p.waitForNavigation(), p.click("form[action='/password'] button[type=submit]")]);
  }
  return { context, page: p };
}

/**
 * Keeps a screenshot of the whole page; of the window only while a teleop widget on it drives.
 * Chromium captures a page taller than its window (captureBeyondViewport) by resizing the view
 * for the capture and back: the page sees a resize to 1x1 (and the pointer leaving), then one
 * to its own size, and either stops a driver, as the teleop safety rules say it must. When
 * both fall in one frame the page sees a single resize to the size it had, which stops nothing;
 * so a keyboard driver was stopped by some screenshots and not others.
 */
export async function shot(page: Page, name: string): Promise<void> {
  const driving = await page.$$eval("[data-widget=teleop][data-control=held]", (els) => els.length > 0);
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: !driving });
}

/** Waits for a condition in Node, polling; no sleeps as synchronisation. */
export async function eventually<T>(f: () => Promise<T | null | undefined | false>, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await f();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
}

/**
 * Compares PNG screenshots inside the browser (no image library here): the share of pixels
 * that differ between a and b, and how many distinct colours a has.
 */
export async function comparePNGs(page: Page, a: Buffer, b: Buffer): Promise<{ changed: number; colours: number }> {
  return page.evaluate(
    async ([a64, b64]) => {
      const pixels = async (s: string) => {
        const bin = atob(s); // not fetch(data:): the page's CSP allows no data: connections
        const bytes = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
        const bmp = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
        const c = new OffscreenCanvas(bmp.width, bmp.height);
        const ctx = c.getContext("2d")!;
        ctx.drawImage(bmp, 0, 0);
        return ctx.getImageData(0, 0, bmp.width, bmp.height).data;
      };
      const pa = await pixels(a64);
      const pb = await pixels(b64);
      let changed = 0;
      const colours = new Set<number>();
      for (let i = 0; i < pa.length; i += 4) {
        if (pa[i] !== pb[i] || pa[i + 1] !== pb[i + 1] || pa[i + 2] !== pb[i + 2]) changed++;
        colours.add((pa[i]! << 16) | (pa[i + 1]! << 8) | pa[i + 2]!);
      }
      return { changed: changed / (pa.length / 4), colours: colours.size };
    },
    [a.toString("base64"), b.toString("base64")] as const,
  );
}
