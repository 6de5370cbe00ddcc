import { beforeEach, describe, expect, it } from "vitest";
import { Backoff } from "../src/net/backoff.js";
import { LiveSocket, type SocketStatus } from "../src/net/socket.js";
import { socketProtocols, TokenError } from "../src/net/token.js";
import { FakeClock, FakeWebSocket, flush } from "./fakes.js";

function setup(opts: { token?: () => Promise<string>; staleAfterMs?: number; onClose?: () => string; forever?: boolean; once?: boolean } = {}) {
  const clock = new FakeClock();
  const states: SocketStatus[] = [];
  const got: unknown[] = [];
  let minted = 0;
  const s = new LiveSocket({
    url: "ws://gw/socket",
    protocols: socketProtocols,
    token: opts.token ?? (async () => `tok${++minted}`),
    onMessage: (d) => got.push(d),
    onStatus: (st) => states.push(st),
    ...(opts.onClose ? { onClose: opts.onClose } : {}),
    staleAfterMs: opts.staleAfterMs ?? 0,
    forever: opts.forever ?? false,
    once: opts.once ?? false,
    backoff: new Backoff({ baseMs: 1000, maxMs: 8000, floorMs: 250, healthyAfterMs: 10_000 }, () => 1),
    env: { WebSocket: FakeWebSocket as unknown as new (u: string) => WebSocket, ...clock },
  });
  return { s, clock, states, got };
}

beforeEach(() => {
  FakeWebSocket.all = [];
});

describe("LiveSocket", () => {
  it("opens with a fresh token per attempt and reports live", async () => {
    const { s, states, got } = setup();
    s.start();
    await flush();
    // The token travels as a subprotocol, never in the URL (a browser logs refused URLs).
    expect(FakeWebSocket.all[0]!.url).toBe("ws://gw/socket");
    expect(FakeWebSocket.all[0]!.protocols).toEqual(["fleetgate", "fleetgate.token.tok1"]);
    FakeWebSocket.all[0]!.open();
    FakeWebSocket.all[0]!.message("hello");
    expect(states.at(-1)!.state).toBe("live");
    expect(got).toEqual(["hello"]);
  });

  it("reconnects with growing delays, never at once, each time with a new token", async () => {
    const { s, clock, states } = setup();
    s.start();
    await flush();
    FakeWebSocket.all[0]!.drop(1006);
    await flush();
    expect(states.at(-1)).toMatchObject({ state: "closed", code: 1006 });
    expect(states.at(-1)!.detail).toContain("retrying in 1 s");
    clock.advance(999);
    await flush();
    expect(FakeWebSocket.all).toHaveLength(1);
    clock.advance(1);
    await flush();
    expect(FakeWebSocket.all).toHaveLength(2);
    expect(FakeWebSocket.all[1]!.protocols).toContain("fleetgate.token.tok2");
    FakeWebSocket.all[1]!.drop(1006);
    await flush();
    clock.advance(1999);
    await flush();
    expect(FakeWebSocket.all).toHaveLength(2);
    clock.advance(1);
    await flush();
    expect(FakeWebSocket.all).toHaveLength(3);
  });

  it("stops for good on a close that says the client was wrong", async () => {
    const { s, clock, states } = setup();
    s.start();
    await flush();
    FakeWebSocket.all[0]!.open();
    FakeWebSocket.all[0]!.drop(1007);
    await flush();
    clock.advance(60_000);
    await flush();
    expect(FakeWebSocket.all).toHaveLength(1);
    expect(states.at(-1)).toMatchObject({ state: "closed", code: 1007 });
    expect(states.at(-1)!.detail).toContain("malformed");
  });

  it("a kiosk wall retries even those", async () => {
    const { s, clock } = setup({ forever: true });
    s.start();
    await flush();
    FakeWebSocket.all[0]!.open();
    FakeWebSocket.all[0]!.drop(1007);
    await flush();
    clock.advance(1000);
    await flush();
    expect(FakeWebSocket.all).toHaveLength(2);
  });

  it("retries when no token can be had, and says why", async () => {
    let calls = 0;
    const { s, clock, states } = setup({
      token: async () => {
        calls++;
        throw new TokenError(401);
      },
    });
    s.start();
    await flush();
    expect(states.at(-1)!.detail).toContain("signed out");
    clock.advance(1000);
    await flush();
    expect(calls).toBe(2);
    expect(FakeWebSocket.all).toHaveLength(0);
  });

  it("keeps the close's words while later attempts cannot even get a token", async () => {
    let fail = false;
    const { s, clock, states } = setup({
      token: async () => {
        if (fail) throw new Error("offline");
        return "tok";
      },
    });
    s.start();
    await flush();
    FakeWebSocket.all[0]!.open();
    fail = true;
    FakeWebSocket.all[0]!.drop(1001);
    await flush();
    clock.advance(1000);
    await flush();
    expect(states.at(-1)!.detail).toMatch(/cannot be reached \(last close: the gateway or the robot went away\); retrying in 2 s/);
  });

  it("goes stale without data and live again with it", async () => {
    const { s, clock, states } = setup({ staleAfterMs: 3000 });
    s.start();
    await flush();
    const ws = FakeWebSocket.all[0]!;
    ws.open();
    clock.advance(3000);
    expect(states.at(-1)!.state).toBe("stale");
    ws.message("x");
    expect(states.at(-1)!.state).toBe("live");
  });

  it("lets the widget explain a refused upgrade", async () => {
    const { s, states } = setup({ onClose: () => "controlled by another operator (ann@example.com)" });
    s.start();
    await flush();
    FakeWebSocket.all[0]!.drop(1006);
    await flush();
    expect(states.at(-1)!.detail).toContain("controlled by another operator (ann@example.com)");
  });

  it("stop closes the socket and cancels the retry", async () => {
    const { s, clock } = setup();
    s.start();
    await flush();
    FakeWebSocket.all[0]!.drop(1006);
    await flush();
    s.stop();
    clock.advance(60_000);
    await flush();
    expect(FakeWebSocket.all).toHaveLength(1);
    expect(s.state).toBe("closed");
  });

  it("once: a close is final, also of a socket that never opened", async () => {
    const { s, clock, states } = setup({ once: true });
    s.start();
    await flush();
    FakeWebSocket.all[0]!.open();
    FakeWebSocket.all[0]!.drop(1006);
    await flush();
    expect(states.at(-1)).toMatchObject({ state: "closed", code: 1006 });
    expect(states.at(-1)!.detail).not.toContain("retrying");
    clock.advance(60_000);
    await flush();
    expect(FakeWebSocket.all).toHaveLength(1);

    // A refused upgrade (409 is 1006 to a browser) is not retried either.
    s.start();
    await flush();
    FakeWebSocket.all[1]!.drop(1006);
    await flush();
    clock.advance(60_000);
    await flush();
    expect(FakeWebSocket.all).toHaveLength(2);
    expect(states.at(-1)!.state).toBe("closed");
  });
});
