import { describe, expect, it } from "vitest";
import { codecString, findSPS, isKeyframe, nalType, NAL, parseSPS, splitNALs, unescapeRBSP } from "../src/video/annexb.js";
import { H264Player, h264Unavailable, maxDecodeQueue, type DecoderPort } from "../src/video/player.js";
import { makeClip, probe } from "./h264clip.js";

// 320x180 is not a whole number of macroblocks (180 = 11.25 x 16): the SPS crops it.
const baseline = makeClip({ width: 320, height: 180, frames: 30, gop: 10, profile: "baseline" });
const high = makeClip({ width: 640, height: 360, frames: 12, gop: 6, profile: "high" });

describe("Annex B", () => {
  it("cuts ffmpeg's stream into one access unit per picture, keyframes where ffprobe sees them", () => {
    const p = probe(baseline.bytes);
    expect(baseline.units).toHaveLength(30);
    const keys = baseline.units.map((u) => isKeyframe(splitNALs(u)));
    expect(keys.filter(Boolean)).toHaveLength(p.keyframes);
    expect(keys.flatMap((k, i) => (k ? [i] : []))).toEqual([0, 10, 20]);
  });

  it("finds SPS and PPS in front of every keyframe, none in a P-frame", () => {
    for (const u of baseline.units) {
      const types = splitNALs(u).map(nalType);
      expect(types[0]).toBe(NAL.aud);
      if (types.includes(NAL.idr)) expect(types).toEqual(expect.arrayContaining([NAL.sps, NAL.pps]));
      else expect(types).not.toContain(NAL.sps);
    }
  });

  it("reads the codec string and the cropped size from the SPS, as ffprobe does", () => {
    for (const clip of [baseline, high]) {
      const p = probe(clip.bytes);
      const sps = findSPS(splitNALs(clip.units[0]!));
      expect(sps).not.toBeNull();
      expect([sps!.width, sps!.height]).toEqual([p.width, p.height]);
      expect(sps!.level).toBe(p.level);
      expect(sps!.profile).toBe({ "Constrained Baseline": 66, Baseline: 66, High: 100 }[p.profile]);
    }
    expect(codecString(findSPS(splitNALs(baseline.units[0]!))!)).toMatch(/^avc1\.42C0[0-9A-F]{2}$/);
    expect(codecString({ profile: 100, constraints: 0, level: 31 })).toBe("avc1.64001F");
  });

  it("splits three- and four-byte start codes and ignores trailing zeros", () => {
    const b = new Uint8Array([0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 0, 1, 0x65, 4, 0, 0]);
    expect(splitNALs(b).map((u) => [...u])).toEqual([[0x67, 1, 2], [0x68, 3], [0x65, 4]]);
    expect(splitNALs(new Uint8Array([1, 2, 3]))).toEqual([]);
  });

  it("removes emulation prevention bytes", () => {
    expect([...unescapeRBSP(new Uint8Array([0, 0, 3, 1, 0, 0, 3, 0, 0, 3]))]).toEqual([0, 0, 1, 0, 0, 0, 0]);
  });

  it("refuses a unit that is not an SPS and an SPS cut short", () => {
    expect(() => parseSPS(new Uint8Array([0x68, 0xff]))).toThrow(/not an SPS/);
    expect(() => parseSPS(new Uint8Array([0x67, 0x42, 0xc0]))).toThrow(/ends early/);
  });
});

class FakeDecoder implements DecoderPort {
  decodeQueueSize = 0;
  configs: string[] = [];
  chunks: { type: string; timestamp: number }[] = [];
  resets = 0;
  closed = false;
  configure(c: { codec: string }): void {
    this.configs.push(c.codec);
  }
  decode(c: { type: "key" | "delta"; timestamp: number }): void {
    this.chunks.push({ type: c.type, timestamp: c.timestamp });
  }
  reset(): void {
    this.resets++;
    this.decodeQueueSize = 0;
  }
  close(): void {
    this.closed = true;
  }
}

describe("H264Player", () => {
  const feed = (p: H264Player, from: number, to: number, seq = (i: number) => BigInt(i)) => {
    for (let i = from; i < to; i++) p.push(baseline.units[i]!, seq(i), i * 1000);
  };

  it("configures from the first keyframe's SPS and decodes every picture in order", () => {
    const d = new FakeDecoder();
    const p = new H264Player(d);
    feed(p, 0, 30);
    expect(d.configs).toEqual([codecString(findSPS(splitNALs(baseline.units[0]!))!)]);
    expect(d.chunks.map((c) => c.timestamp)).toEqual(baseline.units.map((_, i) => i * 1000));
    expect(d.chunks.filter((c) => c.type === "key")).toHaveLength(3);
    expect([p.width, p.height, p.skipped]).toEqual([320, 180, 0]);
  });

  it("waits for a keyframe when it joins mid-stream", () => {
    const d = new FakeDecoder();
    const p = new H264Player(d);
    feed(p, 3, 15);
    expect(d.chunks[0]).toEqual({ type: "key", timestamp: 10_000 });
    expect(p.skipped).toBe(7);
  });

  it("skips to the next keyframe after a gap in the sequence, never a P-frame without its reference", () => {
    const d = new FakeDecoder();
    const p = new H264Player(d);
    feed(p, 0, 4);
    feed(p, 5, 30); // picture 4 was dropped upstream
    const decoded = d.chunks.map((c) => c.timestamp / 1000);
    expect(decoded).toEqual([0, 1, 2, 3, ...Array.from({ length: 20 }, (_, i) => 10 + i)]);
    expect(p.skipped).toBe(5);
  });

  it("treats a restarted sequence (a new socket) as a gap", () => {
    const d = new FakeDecoder();
    const p = new H264Player(d);
    feed(p, 0, 5);
    p.push(baseline.units[5]!, 1n, 5000);
    expect(d.chunks).toHaveLength(5);
  });

  it("skips P-frames while the decoder lags, and a keyframe throws the backlog away", () => {
    const d = new FakeDecoder();
    const p = new H264Player(d);
    feed(p, 0, 3);
    d.decodeQueueSize = maxDecodeQueue + 1;
    feed(p, 3, 10);
    expect(d.chunks).toHaveLength(3);
    feed(p, 10, 11);
    expect(d.resets).toBe(1);
    expect(d.configs).toHaveLength(2); // a reset decoder needs its configuration again
    expect(d.chunks.at(-1)).toEqual({ type: "key", timestamp: 10_000 });
    feed(p, 11, 12);
    expect(d.chunks.at(-1)).toEqual({ type: "delta", timestamp: 11_000 });
  });

  it("reconfigures when the SPS changes (another size)", () => {
    const d = new FakeDecoder();
    const p = new H264Player(d);
    feed(p, 0, 2);
    p.push(high.units[0]!, 2n, 2000);
    expect(d.configs).toHaveLength(2);
    expect(d.configs[1]).toMatch(/^avc1\.64/);
    expect([p.width, p.height]).toEqual([640, 360]);
  });

  it("closes its decoder", () => {
    const d = new FakeDecoder();
    new H264Player(d).close();
    expect(d.closed).toBe(true);
  });
});

describe("h264Unavailable", () => {
  const supported = (ok: boolean) => ({ isConfigSupported: async () => ({ supported: ok }) });
  it("says why a page stays on JPEG", async () => {
    expect(await h264Unavailable({ isSecureContext: false, VideoDecoder: supported(true) })).toMatch(/not a secure context/);
    expect(await h264Unavailable({ isSecureContext: true })).toMatch(/no WebCodecs VideoDecoder/);
    expect(await h264Unavailable({ isSecureContext: true, VideoDecoder: supported(false) })).toMatch(/cannot decode H.264/);
    expect(await h264Unavailable({ isSecureContext: true, VideoDecoder: supported(true) })).toBeNull();
  });
});
