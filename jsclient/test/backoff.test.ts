import { describe, expect, it } from "vitest";
import { Backoff, defaultBackoff } from "../src/net/backoff.js";
import { closeCodeWords, isFinalClose } from "../src/net/closecodes.js";

describe("Backoff", () => {
  it("grows exponentially up to the cap, with jitter inside [step/2, step]", () => {
    for (const r of [0, 0.5, 0.999]) {
      const b = new Backoff(defaultBackoff, () => r);
      const ds = Array.from({ length: 12 }, () => b.next());
      let step = defaultBackoff.baseMs;
      for (const d of ds) {
        expect(d).toBeGreaterThanOrEqual(Math.max(defaultBackoff.floorMs, step / 2));
        expect(d).toBeLessThanOrEqual(step);
        step = Math.min(defaultBackoff.maxMs, step * 2);
      }
      expect(ds.at(-1)).toBeGreaterThanOrEqual(defaultBackoff.maxMs / 2);
    }
  });

  it("never goes below the floor, so a socket that dies at once cannot spin", () => {
    const b = new Backoff({ baseMs: 1, maxMs: 10, floorMs: 250, healthyAfterMs: 1000 }, () => 0);
    for (let i = 0; i < 5; i++) expect(b.next()).toBe(250);
  });

  it("resets only after a connection that lived long enough", () => {
    const b = new Backoff(defaultBackoff, () => 1);
    b.next();
    b.next();
    b.next();
    b.lived(500); // opened and died: still failing
    expect(b.next()).toBe(4000);
    b.lived(defaultBackoff.healthyAfterMs);
    expect(b.next()).toBe(500);
  });
});

describe("close codes", () => {
  it.each([
    [1000, "closed normally"],
    [1001, "shutting down"],
    [1006, "refused or dropped"],
    [1008, "token was revoked or expired"],
    [1011, "internal error"],
    [4321, "closed with code 4321"],
  ])("%i reads %s", (code, words) => {
    expect(closeCodeWords(code)).toContain(words);
  });

  it("adds the server's reason", () => {
    expect(closeCodeWords(1008, "stream not found")).toContain("(stream not found)");
  });

  it("retries everything but the client's own mistakes", () => {
    expect([1000, 1001, 1006, 1008, 1011, 1012].some(isFinalClose)).toBe(false);
    expect([1003, 1007, 1009].every(isFinalClose)).toBe(true);
  });
});
