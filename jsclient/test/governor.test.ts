import { describe, expect, it } from "vitest";
import { parseSpeedLimit, pictureAgeFrame } from "../src/teleop/governor.js";

describe("the governor's frames", () => {
  it("reads the gateway's speedLimit frames and nothing else", () => {
    expect(parseSpeedLimit(`{"speedLimit":{"scale":0.45,"delayMs":800,"why":"picture 0.8 s late: 45% speed"}}`)).toEqual({
      scale: 0.45,
      delayMs: 800,
      why: "picture 0.8 s late: 45% speed",
    });
    expect(parseSpeedLimit(`{"handover":"granted"}`)).toBeNull();
    expect(parseSpeedLimit(`{"speedLimit":{"scale":"0.4","why":"x"}}`)).toBeNull();
    expect(parseSpeedLimit("not json")).toBeNull();
    expect(parseSpeedLimit(new ArrayBuffer(2))).toBeNull();
  });

  it("reports the picture's age, never negative", () => {
    expect(pictureAgeFrame(812.4)).toBe(`{"pictureAgeMs":812}`);
    expect(pictureAgeFrame(-30)).toBe(`{"pictureAgeMs":0}`);
  });

});
