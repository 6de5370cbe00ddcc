// The recording player's timing on an injected clock (seek, speed, pause, the end), its
// reading of an MCAP file through range requests, and the feed's envelopes.
import { create, toBinary } from "@bufbuild/protobuf";
import { McapWriter, TempBuffer } from "@mcap/core";
import { describe, expect, it } from "vitest";
import { decodeFrame } from "../src/decode/frame.js";
import { envelopeOf, RecordingFeed } from "../src/playback/feed.js";
import { McapSource, RangeFile } from "../src/playback/mcapsource.js";
import { offsetWords, startAt, widgetFor } from "../src/playback/playback.js";
import { Playhead } from "../src/playback/playhead.js";
import { Player, type RecordedMessage, type RecordingSource } from "../src/playback/player.js";
import { CompressedVideoSchema } from "../gen/platform/messages/foxglove_msgs_pb.js";
import { FakeClock } from "./fakes.js";
import { makeClip } from "./h264clip.js";

const t0 = Date.UTC(2026, 10, 28, 1, 0, 0);

describe("the playhead", () => {
  it("moves with the clock at its speed, holds while paused, stops at the end", () => {
    const clock = new FakeClock();
    const h = new Playhead(t0, t0 + 10_000, clock);
    expect(h.position()).toBe(t0);
    clock.advance(1000);
    expect(h.position()).toBe(t0); // not playing yet
    h.play();
    clock.advance(1500);
    expect(h.position()).toBe(t0 + 1500);
    h.setSpeed(2);
    clock.advance(1000);
    expect(h.position()).toBe(t0 + 3500);
    h.pause();
    clock.advance(5000);
    expect(h.position()).toBe(t0 + 3500);
    h.setSpeed(0.5);
    h.play();
    clock.advance(1000);
    expect(h.position()).toBe(t0 + 4000);
    h.setSpeed(4);
    clock.advance(60_000);
    expect(h.position()).toBe(t0 + 10_000);
    expect(h.playing).toBe(false);
    h.play(); // from the start again
    clock.advance(250);
    expect(h.position()).toBe(t0 + 1000);
  });

  it("seeks within the recording and plays on from there", () => {
    const clock = new FakeClock();
    const h = new Playhead(t0, t0 + 10_000, clock);
    expect(h.seek(t0 - 5)).toBe(t0);
    expect(h.seek(t0 + 99_999)).toBe(t0 + 10_000);
    h.seek(t0 + 2000);
    h.play();
    clock.advance(100);
    h.seek(t0 + 7000);
    expect(h.position()).toBe(t0 + 7000);
    clock.advance(100);
    expect(h.position()).toBe(t0 + 7100);
  });

  it("refuses a speed outside 0.5x to 4x", () => {
    const h = new Playhead(t0, t0 + 1, new FakeClock());
    expect(() => h.setSpeed(8)).toThrow(/choose one of 0.5, 1, 2, 4/);
    expect(() => h.setSpeed(0)).toThrow();
  });
});

/** Two streams: a camera at 10 Hz (channel 1) and a pose at 4 Hz (channel 2), over 10 s. */
function fakeRecording(): RecordingSource & { reads: number } {
  const all: RecordedMessage[] = [];
  for (let t = 0; t <= 10_000; t += 100) all.push({ channel: 1, atMs: t0 + t, logMs: t0 + t + 5, publishMs: t0 + t, sequence: t / 100 + 1, data: new Uint8Array([1]) });
  for (let t = 0; t <= 10_000; t += 250) all.push({ channel: 2, atMs: t0 + t + 1, logMs: t0 + t + 2, publishMs: t0 + t + 1, sequence: t / 250 + 1, data: new Uint8Array([2]) });
  all.sort((a, b) => a.logMs - b.logMs);
  const src = {
    startMs: t0,
    endMs: t0 + 10_001,
    reads: 0,
    messages(fromMs: number): AsyncIterator<RecordedMessage> {
      let i = all.findIndex((m) => m.logMs >= fromMs);
      if (i < 0) i = all.length;
      return {
        next: async () => {
          src.reads++;
          return i < all.length ? { done: false, value: all[i++]! } : { done: true, value: undefined };
        },
      };
    },
    async latest(at: number): Promise<RecordedMessage[]> {
      return [1, 2].flatMap((ch) => all.filter((m) => m.channel === ch && m.atMs <= at).slice(-1));
    },
  };
  return src;
}

function newPlayer() {
  const clock = new FakeClock();
  const got: RecordedMessage[] = [];
  let resets = 0;
  const player = new Player(fakeRecording(), clock, (m) => got.push(m), { tickMs: 10, aheadMs: 500, onReset: () => resets++ });
  return { clock, got, player, resets: () => resets };
}

/** A player at the recording's start, read ahead, playing at speed; got holds what it delivers from then on. */
async function playingFromStart(speed: number) {
  const p = newPlayer();
  await p.player.seek(t0);
  await settle(); // the read ahead
  p.got.length = 0;
  p.player.setSpeed(speed);
  p.player.play();
  return p;
}

/** Every pending promise callback (the player's reads), however long their chain. */
const settle = () => new Promise<void>((r) => setImmediate(r));

/** Moves the clock by ms in the player's ticks (10 ms), letting its reads finish after each. */
async function run(clock: FakeClock, ms: number): Promise<void> {
  for (let done = 0; done < ms; done += 10) {
    clock.advance(Math.min(10, ms - done));
    await settle();
  }
}

const times = (ms: RecordedMessage[], ch: number) => ms.filter((m) => m.channel === ch).map((m) => m.atMs - t0);

describe("the player", () => {
  it("delivers a video's run from its keyframe in its order at a seek, the streams by their times", async () => {
    const msg = (channel: number, sequence: number, at: number): RecordedMessage => ({ channel, atMs: t0 + at, logMs: t0 + at, publishMs: t0 + at, sequence, data: new Uint8Array() });
    // An encoder's first frames reach the recorder late: their times are not in their order.
    const run = [msg(1, 1, 1267), msg(1, 2, 1281), msg(1, 3, 1117), msg(1, 4, 1187)];
    const src: RecordingSource = { startMs: t0, endMs: t0 + 2000, messages: () => ({ next: async () => ({ done: true, value: undefined }) }), latest: async () => [msg(2, 9, 1250), ...run] };
    const got: RecordedMessage[] = [];
    await new Player(src, new FakeClock(), (m) => got.push(m)).seek(t0 + 1300);
    expect(got.map((m) => [m.channel, m.sequence])).toEqual([[1, 1], [1, 2], [1, 3], [1, 4], [2, 9]]);
  });

  it("shows every stream's newest message at a seek, then plays on from there", async () => {
    const { clock, got, player, resets } = newPlayer();
    await player.seek(t0 + 3333);
    expect(resets()).toBe(1);
    expect(got.map((m) => [m.channel, m.atMs - t0])).toEqual([
      [2, 3251],
      [1, 3300],
    ]);
    got.length = 0;
    await settle();
    player.play();
    await run(clock, 400);
    // Up to 3733: camera frames 3400..3700 and poses 3501; nothing at or before 3333 twice.
    expect(times(got, 1)).toEqual([3400, 3500, 3600, 3700]);
    expect(times(got, 2)).toEqual([3501]);
  });

  it("plays at the chosen speed, and pausing holds it", async () => {
    const { clock, got, player } = await playingFromStart(4);
    await run(clock, 250); // 1 s of the recording
    expect(times(got, 1)).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    player.pause();
    const held = got.length;
    await run(clock, 2000);
    expect(got.length).toBe(held);
    expect(player.position()).toBe(t0 + 1000);
    player.setSpeed(0.5);
    player.play();
    await run(clock, 400); // 0.2 s of the recording
    expect(times(got, 1).slice(10)).toEqual([1100, 1200]);
  });

  it("delivers each stream in order without gaps or repeats, up to the end, then stops", async () => {
    const { clock, got, player } = await playingFromStart(4);
    await run(clock, 4000);
    expect(player.head.playing).toBe(false);
    expect(player.position()).toBe(t0 + 10_001);
    expect(times(got, 1)).toEqual(Array.from({ length: 100 }, (_, i) => (i + 1) * 100));
    expect(times(got, 2)).toEqual(Array.from({ length: 41 }, (_, i) => i * 250 + 1));
    expect(clock.pending).toBe(0); // no timer left once it stopped
  });

  it("reads ahead of the playhead only as far as it needs", async () => {
    const src = fakeRecording();
    const clock = new FakeClock();
    const player = new Player(src, clock, () => {}, { tickMs: 10, aheadMs: 500 });
    await player.seek(t0);
    player.play();
    await run(clock, 80);
    // 0.5 s ahead: about 5 camera frames and 2 poses, not the 141 messages of the file.
    expect(src.reads).toBeLessThan(12);
  });

  it("waits where the read messages end while the file is slow to come (buffering)", async () => {
    const src = fakeRecording();
    const gates: (() => void)[] = [];
    const slow: RecordingSource = {
      ...src,
      latest: (at) => src.latest(at),
      messages: (f) => {
        const it = src.messages(f);
        return { next: () => new Promise<void>((r) => gates.push(r)).then(() => it.next()) };
      },
    };
    const clock = new FakeClock();
    const got: RecordedMessage[] = [];
    const player = new Player(slow, clock, (m) => got.push(m), { tickMs: 10, aheadMs: 500 });
    await player.seek(t0 + 2000);
    got.length = 0;
    player.play();
    await run(clock, 500);
    expect(player.position()).toBe(t0 + 2000); // nothing read: nothing shown, and no time lost
    while (gates.length) {
      gates.shift()!();
      await settle();
    }
    await run(clock, 300);
    expect(times(got, 1)).toEqual([2100, 2200, 2300]);
    expect(player.position()).toBeGreaterThan(t0 + 2290);
  });

  it("a later seek wins over one still loading", async () => {
    const clock = new FakeClock();
    const got: RecordedMessage[] = [];
    const src = fakeRecording();
    let release: () => void = () => {};
    const slow: RecordingSource = {
      ...src,
      messages: (f) => src.messages(f),
      latest: (at) => (at < t0 + 5000 ? new Promise((r) => (release = () => void src.latest(at).then(r))) : src.latest(at)),
    };
    const player = new Player(slow, clock, (m) => got.push(m), { tickMs: 10 });
    const first = player.seek(t0 + 1000);
    await player.seek(t0 + 8000);
    release();
    await first;
    expect(got.map((m) => m.atMs - t0)).toEqual([7751, 8000]);
    expect(player.position()).toBe(t0 + 8000);
  });
});

describe("the player page's words", () => {
  it("opens a shared moment given as RFC 3339 or seconds from the start", () => {
    expect(startAt("", t0)).toBe(t0);
    expect(startAt("12.5", t0)).toBe(t0 + 12_500);
    expect(startAt("2026-11-28T01:00:03.250Z", t0)).toBe(t0 + 3250);
    expect(startAt("2026-11-28T02:00:03+01:00", t0)).toBe(t0 + 3000);
    expect(startAt("yesterday", t0)).toBeNull();
    expect(offsetWords(83_450)).toBe("1:23.4");
  });

  it("picks a widget by the recorded type", () => {
    expect(widgetFor("Platform.Messages.sensor_msgs.CompressedImage")).toBe("camera");
    expect(widgetFor("Platform.Messages.foxglove_msgs.CompressedVideo")).toBe("camera");
    expect(widgetFor("Platform.Messages.sensor_msgs.LaserScan")).toBe("laserscan");
    expect(widgetFor("Platform.Messages.sensor_msgs.PointCloud2")).toBe("pointcloud");
    expect(widgetFor("Platform.Messages.nav_msgs.Odometry")).toBe("pose-map");
    expect(widgetFor("Platform.Messages.geometry_msgs.Twist")).toBeNull();
  });
});

const camera = { channel: 1, topic: "/camera/image", component: "camera", stream: "image", source: "1", type: "Platform.Messages.sensor_msgs.CompressedImage" };

describe("the recording's feed", () => {
  it("gives widgets the envelope W3 would, and a late widget the newest message", async () => {
    const feed = new RecordingFeed([camera], () => t0);
    const m: RecordedMessage = { channel: 1, atMs: t0 + 12.345, logMs: t0 + 20, publishMs: t0 + 12.345, sequence: 7, data: new Uint8Array([0x12, 0x04, 0x6a, 0x70, 0x65, 0x67]) }; // format "jpeg"
    const f = await decodeFrame(envelopeOf(camera, m));
    expect([f.component, f.stream, f.source, f.sequence, f.publishedMs]).toEqual(["camera", "image", 1, 7n, t0 + 12]);
    expect(f.payload?.dataType === "Platform.Messages.sensor_msgs.CompressedImage" && f.payload.message.format).toBe("jpeg");

    feed.deliver(m);
    const got: ArrayBuffer[] = [];
    let resets = 0;
    const sub = feed.open({ robotId: "r", component: "camera", stream: "image", source: "1", type: camera.type }, {
      onStatus: () => {},
      onMessage: (d) => got.push(d as ArrayBuffer),
      onReset: () => resets++,
    });
    expect(got).toHaveLength(1);
    feed.deliver({ ...m, sequence: 8 });
    expect(got).toHaveLength(2);
    feed.reset();
    expect(resets).toBe(1);
    sub.stop();
    feed.deliver(m);
    expect(got).toHaveLength(2);
  });
});

/** An MCAP file of the camera stream, 10 frames 100 ms apart, in small chunks. */
async function mcapFile(): Promise<Uint8Array> {
  const buf = new TempBuffer();
  const w = new McapWriter({ writable: buf, chunkSize: 64 });
  await w.start({ profile: "", library: "test" });
  const channel = await w.registerChannel({
    topic: camera.topic,
    messageEncoding: "protobuf",
    schemaId: 0,
    metadata: new Map([
      ["component", "camera"],
      ["stream", "image"],
      ["source", "1"],
      ["type", camera.type],
    ]),
  });
  for (let i = 0; i < 10; i++) {
    const ns = BigInt(t0 + i * 100) * 1_000_000n;
    await w.addMessage({ channelId: channel, sequence: i + 1, logTime: ns, publishTime: ns - 5_000_000n, data: new Uint8Array([i]) });
  }
  await w.end();
  return buf.get();
}

/** A gateway's download: answers ranges (206) while the link is fresh. */
function download(file: Uint8Array, opts: { ranges?: boolean } = {}) {
  const seen: { url: string; range: string; status: number }[] = [];
  let links = 0;
  const fetchFn = async (url: string, init: RequestInit): Promise<Response> => {
    const range = new Headers(init.headers).get("Range") ?? "";
    const [, a, b] = /bytes=(\d+)-(\d+)/.exec(range) ?? [];
    let r: Response;
    if (url.endsWith("expired")) r = new Response("{}", { status: 403 });
    else if (opts.ranges === false) r = new Response(file as BodyInit, { status: 200 });
    else r = new Response(file.slice(Number(a), Number(b) + 1) as BodyInit, { status: 206, headers: { "Content-Range": `bytes ${a}-${b}/${file.length}` } });
    seen.push({ url, range, status: r.status });
    return r;
  };
  const link = async () => (links++ === 0 ? "/files/rec?expired" : `/files/rec?sig=${links}`);
  return { seen, fetchFn, link, links: () => links };
}

describe("reading an MCAP file through range requests", () => {
  it("opens the summary, seeks and reads on, asking a fresh link when one expired", async () => {
    const bytes = await mcapFile();
    const d = download(bytes);
    const file = new RangeFile(d.link, d.fetchFn);
    const src = await McapSource.open(file);
    expect([src.startMs, src.endMs]).toEqual([t0, t0 + 900]);
    expect(src.streams).toEqual([{ ...camera, channel: src.streams[0]!.channel }]);
    expect(d.links()).toBe(2); // the first link had expired
    expect(d.seen.every((s) => s.range !== "")).toBe(true);
    expect(file.fetched).toBeLessThan(bytes.length * 2);

    const at = await src.latest(t0 + 450);
    expect(at.map((m) => [m.logMs - t0, m.publishMs - t0, m.data[0]])).toEqual([[400, 395, 4]]);
    // The frame of a time is the one taken by then (its publish time), though it reached the
    // recorder a little after.
    expect((await src.latest(t0 + 497)).map((m) => m.data[0])).toEqual([5]);
    expect((await src.latest(t0 + 494)).map((m) => m.data[0])).toEqual([4]);
    const it = src.messages(t0 + 700);
    const next = [];
    for (let r = await it.next(); !r.done; r = await it.next()) next.push(r.value.logMs - t0);
    expect(next).toEqual([700, 800, 900]);
  });

  it("says so when the gateway answers ranges with the whole file", async () => {
    const d = download(await mcapFile(), { ranges: false });
    await expect(McapSource.open(new RangeFile(async () => "/files/rec", d.fetchFn))).rejects.toThrow(/range requests/);
  });
});

describe("seeking in a recorded H.264 stream", () => {
  const clip = makeClip({ width: 160, height: 120, frames: 20, gop: 8, profile: "baseline" });

  /** The clip recorded as CompressedVideo, 100 ms apart, in small chunks. */
  async function videoFile(): Promise<Uint8Array> {
    const buf = new TempBuffer();
    const w = new McapWriter({ writable: buf, chunkSize: 2048 });
    await w.start({ profile: "", library: "test" });
    const channel = await w.registerChannel({
      topic: "/camera/image",
      messageEncoding: "protobuf",
      schemaId: 0,
      metadata: new Map([["component", "camera"], ["stream", "image"], ["source", "1"], ["type", "Platform.Messages.foxglove_msgs.CompressedVideo"]]),
    });
    for (const [i, au] of clip.units.entries()) {
      const ns = BigInt(t0 + i * 100) * 1_000_000n;
      const data = toBinary(CompressedVideoSchema, create(CompressedVideoSchema, { frameId: "camera", data: au, format: "h264" }));
      await w.addMessage({ channelId: channel, sequence: i + 1, logTime: ns, publishTime: ns, data });
    }
    await w.end();
    return buf.get();
  }

  it("delivers the frames from the keyframe before the time, so the picture of that time can be decoded", async () => {
    const d = download(await videoFile());
    const src = await McapSource.open(new RangeFile(d.link, d.fetchFn));
    const seqs = async (at: number) => (await src.latest(t0 + at)).map((m) => m.sequence);
    expect(await seqs(1150)).toEqual([9, 10, 11, 12]); // keyframes at 1, 9, 17
    expect(await seqs(800)).toEqual([9]); // a keyframe itself
    expect(await seqs(750)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
