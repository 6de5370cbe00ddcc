import { describe, expect, it } from "vitest";
import { answerFrame, parseHandover } from "../src/teleop/handover.js";

describe("the handover frames", () => {
  it("reads the gateway's frames and nothing else", () => {
    expect(parseHandover(`{"handover":"requested","by":"ben@example.com","since":"2026-11-28T09:00:00Z"}`)).toEqual({
      handover: "requested",
      by: "ben@example.com",
      since: "2026-11-28T09:00:00Z",
    });
    expect(parseHandover(`{"handover":"granted"}`)?.handover).toBe("granted");
    expect(parseHandover(`{"handover":"grant"}`)).toBeNull(); // the holder's answer, not the gateway's
    expect(parseHandover(`{"handover":7}`)).toBeNull();
    expect(parseHandover("not json")).toBeNull();
    expect(parseHandover("null")).toBeNull();
    expect(parseHandover(new ArrayBuffer(4))).toBeNull();
  });

  it("answers as the gateway reads it", () => {
    expect(JSON.parse(answerFrame(true))).toEqual({ handover: "grant" });
    expect(JSON.parse(answerFrame(false))).toEqual({ handover: "refuse" });
  });
});
