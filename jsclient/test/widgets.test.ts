import { describe, expect, it } from "vitest";
import { cloudArrays, ramp, type CloudMessage } from "../src/decode/cloud.js";
import { rawToRGBA } from "../src/decode/pixels.js";
import { History, metricPercent } from "../src/widgets/history.js";
import { KPIState, poseOf } from "../src/widgets/kpi.js";
import { tileAge } from "../src/widgets/kpiwall.js";
import { clock, timeSteps } from "../src/widgets/charts.js";
import { confirmWithinMs, stateWords } from "../src/page/behaviours.js";

describe("raw image pixels", () => {
  it.each<[string, number[], number[]]>([
    ["rgb8", [10, 20, 30], [10, 20, 30, 255]],
    ["bgr8", [10, 20, 30], [30, 20, 10, 255]],
    ["rgba8", [10, 20, 30, 40], [10, 20, 30, 255]],
    ["mono8", [77], [77, 77, 77, 255]],
  ])("%s", (enc, px, want) => {
    expect([...rawToRGBA(enc, 1, 1, px.length, new Uint8Array(px))]).toEqual(want);
  });

  it("mono16 scales by the frame's maximum, in either byte order", () => {
    const le = new Uint8Array([0x00, 0x01, 0x00, 0x02]); // 256, 512
    expect([...rawToRGBA("mono16", 2, 1, 4, le)].filter((_, i) => i % 4 === 0)).toEqual([128, 255]);
    const be = new Uint8Array([0x01, 0x00, 0x02, 0x00]);
    expect([...rawToRGBA("mono16", 2, 1, 4, be, true)].filter((_, i) => i % 4 === 0)).toEqual([128, 255]);
  });

  it("skips row padding (step)", () => {
    const data = new Uint8Array([1, 9, 2, 9]); // 1x2 mono8, step 2
    expect([...rawToRGBA("mono8", 1, 2, 2, data)].filter((_, i) => i % 4 === 0)).toEqual([1, 2]);
  });

  it("refuses short data and unknown encodings", () => {
    expect(() => rawToRGBA("rgb8", 2, 2, 6, new Uint8Array(5))).toThrow(/too short/);
    expect(() => rawToRGBA("yuv422", 1, 1, 2, new Uint8Array(2))).toThrow(/unsupported/);
  });
});

function cloud(points: [number, number, number, number][]): CloudMessage {
  const data = new Uint8Array(points.length * 16);
  const v = new DataView(data.buffer);
  points.forEach((p, i) => p.forEach((c, j) => v.setFloat32(i * 16 + j * 4, c, true)));
  const f = (name: string, offset: number) => ({ name, offset, datatype: 7, count: 1 });
  return { width: points.length, height: 1, fields: [f("x", 0), f("y", 4), f("z", 8), f("intensity", 12)], isBigendian: false, pointStep: 16, data };
}

describe("point cloud arrays", () => {
  it("keeps finite points and colours by height or intensity", () => {
    const m = cloud([
      [1, 2, 0, 100],
      [NaN, 0, 0, 0],
      [3, 4, 2, 50],
    ]);
    const h = cloudArrays(m, "height");
    expect(h.count).toBe(2);
    expect([...h.positions.slice(0, 6)]).toEqual([1, 2, 0, 3, 4, 2]);
    expect([h.min, h.max]).toEqual([0, 2]);
    expect([...h.colors.slice(0, 3)]).toEqual(ramp(0));
    const i = cloudArrays(m, "intensity");
    expect([i.min, i.max]).toEqual([50, 100]);
  });

  it("strides a cloud larger than the cap and reuses the buffers", () => {
    const pts = Array.from({ length: 1000 }, (_, k) => [k, 0, 0, 0] as [number, number, number, number]);
    const first = cloudArrays(cloud(pts), "height", 100);
    expect(first.count).toBe(100);
    expect(first.positions[3]).toBe(10);
    const again = cloudArrays(cloud(pts), "height", 100, first);
    expect(again.positions).toBe(first.positions);
  });

  it("needs x, y and z", () => {
    const m = cloud([[1, 1, 1, 1]]);
    m.fields = m.fields.filter((f) => f.name !== "z");
    expect(() => cloudArrays(m, "height")).toThrow(/x, y, z/);
  });
});

describe("KPI state", () => {
  it("keeps each robot's newest values and reads poses", () => {
    const s = new KPIState();
    s.apply({
      updates: [
        { basicData: { id: "r1", name: "one" }, updateTime: "2026-01-01T00:00:01Z", metric: { name: "battery", dataType: "x", value: 50 } },
        {
          basicData: { id: "r1", name: "one" },
          updateTime: "2026-01-01T00:00:02Z",
          metric: { name: "pose", dataType: "x", value: { position: { x: 1, y: 2, z: 0 }, orientation: { x: 0, y: 0, z: Math.SQRT1_2, w: Math.SQRT1_2 } } },
        },
      ],
    });
    const r = s.robots.get("r1")!;
    expect(r.values.get("battery")).toBe(50);
    expect(r.updated).toBe(Date.parse("2026-01-01T00:00:02Z"));
    const p = poseOf(r.values.get("pose"))!;
    expect(p.x).toBe(1);
    expect(p.yaw).toBeCloseTo(Math.PI / 2);
    expect(poseOf(42)).toBeNull();
  });
});

describe("kiosk tiles", () => {
  it.each<[string | undefined, number, number, boolean, number | null]>([
    ["0", 10_000, 10_000, false, 0],
    ["1000", 10_000, 14_000, false, 5000],
    ["1000", 10_000, 14_001, true, 5001],
    ["6000", 10_000, 10_000, true, 6000],
    ["-50", 10_000, 10_000, false, 0], // the robot's clock ahead of the gateway's
    [undefined, 10_000, 99_000, false, null], // no data: offline says so, not staleness
  ])("rendered %s ms old, loaded at %i, now %i: stale %s", (age, loaded, now, stale, ageMs) => {
    expect(tileAge(age, loaded, now)).toEqual({ stale, ageMs });
  });
});

describe("metric chart time axis", () => {
  it("reads as a clock, whole seconds", () => {
    for (const t of [0, 1_764_000_030.6, 1_764_003_599.999]) expect(clock(t)).toMatch(/^\d\d:\d\d:\d\d$/);
  });
  it("steps in whole seconds and minutes", () => {
    expect(timeSteps.every((s) => Number.isInteger(s) && (s < 60 || s % 60 === 0))).toBe(true);
  });
});

describe("metric history", () => {
  it("rolls over at its size", () => {
    const h = new History(2, 3);
    for (let t = 0; t < 5; t++) h.push(t, [t, null]);
    expect(h.data()).toEqual([
      [2, 3, 4],
      [2, 3, 4],
      [null, null, null],
    ]);
  });

  it.each<[string, unknown, number | null]>([
    ["a number", { metric: { value: 42 } }, 42],
    ["usage", { metric: { value: { used: 1, limit: 4 } } }, 25],
    ["usage without limit", { metric: { value: { used: 1, limit: 0 } } }, null],
    ["no metric", {}, null],
  ])("reads %s", (_, body, want) => {
    expect(metricPercent(body)).toBe(want);
  });
});

describe("point cloud at full size", () => {
  it("fills 500k points well inside a frame budget of a slow tab", () => {
    const n = 500_000;
    const data = new Uint8Array(n * 16);
    const v = new DataView(data.buffer);
    for (let i = 0; i < n; i++) {
      v.setFloat32(i * 16, i % 100, true);
      v.setFloat32(i * 16 + 4, (i / 100) % 100, true);
      v.setFloat32(i * 16 + 8, (i % 7) / 7, true);
    }
    const f = (name: string, offset: number) => ({ name, offset, datatype: 7, count: 1 });
    const m = { width: n, height: 1, fields: [f("x", 0), f("y", 4), f("z", 8)], isBigendian: false, pointStep: 16, data };
    const out = cloudArrays(m, "height");
    const t0 = performance.now();
    const again = cloudArrays(m, "height", 500_000, out);
    const ms = performance.now() - t0;
    expect(again.count).toBe(n);
    expect(ms).toBeLessThan(250); // measured about 40 ms here; generous for a loaded CI machine
  });
});

describe("a robot's state between refreshes", () => {
  it.each<[number, string, string]>([
    [0, "online", "online"],
    [2000, "online", "online"],
    [2001, "unconfirmed", "not confirmed for 2 s"],
    [15_400, "unconfirmed", "not confirmed for 15 s"],
  ])("%i ms after the last answer: %s", (silent, state, words) => {
    expect(stateWords(silent)).toEqual({ state, words });
  });

  it("allows the gateway's 2 s, no more", () => {
    expect(confirmWithinMs).toBe(2000);
  });
});
