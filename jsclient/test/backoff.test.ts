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
    [1001, "went away"],
    [1006, "refused or dropped"],
    [1008, "token was revoked or expired"],
    [1011, "could not go on"],
    [4321, "closed with code 4321"],
  ])("%i reads %s", (code, words) => {
    expect(closeCodeWords(code)).toContain(words);
  });

  it("says the server's reason alone: a code stands for several causes", () => {
    expect(closeCodeWords(1008, "stream not found")).toBe("stream not found");
    const frozen = "publishing to the robot failed: the robot's gateway stopped answering; it stops the robot by itself";
    expect(closeCodeWords(1011, frozen)).toBe(frozen);
    expect(closeCodeWords(1001, "the robot went offline")).toBe("the robot went offline");
  });

  it("never says an offline robot's gateway failed or shuts down", () => {
    for (const code of [1001, 1011]) expect(closeCodeWords(code)).not.toMatch(/internal error|shutting down/);
  });

  it("retries everything but the client's own mistakes", () => {
    expect([1000, 1001, 1006, 1008, 1011, 1012].some(isFinalClose)).toBe(false);
    expect([1003, 1007, 1009].every(isFinalClose)).toBe(true);
  });
});
