// A recording read in the page from its download, with HTTP range requests: @mcap/core's
// indexed reader reads the footer, the summary (channels, chunk indexes) and then only the
// chunks a seek or the playhead needs; fzstd inflates the chunks (the agent writes zstd).
// Nothing is kept on the gateway for a player, and both gateways serve the same download.
import { fromBinary } from "@bufbuild/protobuf";
import { McapIndexedReader, type McapTypes } from "@mcap/core";
import { decompress } from "fzstd";
import { CompressedVideoSchema } from "../../gen/platform/messages/foxglove_msgs_pb.js";
import { isKeyframe, splitNALs } from "../video/annexb.js";
import type { RecordedMessage, RecordingSource } from "./player.js";

type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** How many bytes of recent reads are kept: a seek reads back the chunk the playhead then reads on. */
const cacheBytes = 32 << 20;

/**
 * The bytes of a download through range requests. link mints a signed download URL (it
 * expires after minutes: a refused read asks for a fresh one once).
 */
export class RangeFile implements McapTypes.IReadable {
  private url: string | null = null;
  private total: bigint | null = null;
  private cache = new Map<string, Uint8Array>();
  private cached = 0;
  /** Bytes fetched from the gateway, for the player's figures and tests. */
  fetched = 0;

  constructor(
    private readonly link: () => Promise<string>,
    private readonly fetchFn: Fetch = (u, i) => fetch(u, i),
  ) {}

  async size(): Promise<bigint> {
    if (this.total === null) await this.get(0n, 1n);
    return this.total!;
  }

  async read(offset: bigint, size: bigint): Promise<Uint8Array> {
    if (size === 0n) return new Uint8Array(0);
    const key = `${offset}+${size}`;
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key); // most recent last
      this.cache.set(key, hit);
      return hit;
    }
    const bytes = await this.get(offset, size);
    this.cache.set(key, bytes);
    this.cached += bytes.byteLength;
    for (const [k, v] of this.cache) {
      if (this.cached <= cacheBytes) break;
      this.cache.delete(k);
      this.cached -= v.byteLength;
    }
    return bytes;
  }

  private async get(offset: bigint, size: bigint, fresh = false): Promise<Uint8Array> {
    if (!this.url || fresh) this.url = await this.link();
    const r = await this.fetchFn(this.url, { headers: { Range: `bytes=${offset}-${offset + size - 1n}` }, credentials: "same-origin" });
    if (r.status === 403 && !fresh) return this.get(offset, size, true); // the link expired
    if (r.status !== 206) {
      throw new Error(r.status === 200 ? "the gateway does not serve parts of the file (range requests)" : `reading the recording failed (HTTP ${r.status})`);
    }
    const total = /\/(\d+)$/.exec(r.headers.get("Content-Range") ?? "")?.[1];
    if (total) this.total = BigInt(total);
    const bytes = new Uint8Array(await r.arrayBuffer());
    this.fetched += bytes.byteLength;
    if (BigInt(bytes.byteLength) !== size) throw new Error(`asked for ${size} bytes at ${offset}, got ${bytes.byteLength}`);
    return bytes;
  }
}

/** A stream as the recorder describes its channel (the channel's metadata). */
export interface RecordedStream {
  channel: number;
  topic: string;
  component: string;
  stream: string;
  source: string;
  type: string;
}

const msOf = (ns: bigint): number => Number(ns / 1000n) / 1000;
// Times are kept to the microsecond in the page (a double holds today's epoch in µs exactly).
const nsOf = (ms: number): bigint => BigInt(Math.round(ms * 1000)) * 1000n;

/** How far publish and log times may disagree before the publish time is not believed. */
const trustMs = 1000;

function recorded(m: McapTypes.Message): RecordedMessage {
  const logMs = msOf(m.logTime);
  const publishMs = msOf(m.publishTime);
  const atMs = Math.abs(logMs - publishMs) <= trustMs ? publishMs : logMs;
  return { channel: m.channelId, atMs, logMs, publishMs, sequence: m.sequence, data: m.data };
}

export class McapSource implements RecordingSource {
  readonly startMs: number;
  readonly endMs: number;
  readonly streams: RecordedStream[];

  private constructor(private readonly reader: McapIndexedReader) {
    const times = reader.chunkIndexes.flatMap((c) => [c.messageStartTime, c.messageEndTime]);
    const stats = reader.statistics;
    const first = stats && stats.messageCount > 0n ? stats.messageStartTime : times.reduce((a, b) => (b < a ? b : a), times[0] ?? 0n);
    const last = stats && stats.messageCount > 0n ? stats.messageEndTime : times.reduce((a, b) => (b > a ? b : a), times[0] ?? 0n);
    this.startMs = msOf(first);
    this.endMs = msOf(last);
    this.streams = [...reader.channelsById.values()].map((c) => ({
      channel: c.id,
      topic: c.topic,
      component: c.metadata.get("component") ?? "",
      stream: c.metadata.get("stream") ?? c.topic,
      source: c.metadata.get("source") ?? "1",
      type: c.metadata.get("type") ?? "",
    }));
  }

  static async open(file: McapTypes.IReadable): Promise<McapSource> {
    const reader = await McapIndexedReader.Initialize({
      readable: file,
      decompressHandlers: { zstd: (buf, size) => decompress(buf, new Uint8Array(Number(size))) },
    });
    return new McapSource(reader);
  }

  messages(fromMs: number): AsyncIterator<RecordedMessage> {
    const it = this.reader.readMessages({ startTime: nsOf(fromMs) });
    return {
      next: async () => {
        const r = await it.next();
        return r.done ? { done: true, value: undefined } : { done: false, value: recorded(r.value) };
      },
      return: async () => {
        await it.return();
        return { done: true, value: undefined };
      },
    };
  }

  async latest(at: number): Promise<RecordedMessage[]> {
    const out: RecordedMessage[] = [];
    // One reverse read per stream from a second past the time (a frame taken before it may
    // have reached the recorder after it); the chunk index says which chunks hold the stream,
    // so a map recorded once at the start costs its one chunk, not every chunk in between.
    for (const s of this.streams) {
      const it = this.reader.readMessages({ topics: [s.topic], endTime: nsOf(at + trustMs) + 999n, reverse: true });
      let best: RecordedMessage | null = null;
      for (let r = await it.next(); !r.done; r = await it.next()) {
        const m = recorded(r.value);
        if (m.channel !== s.channel) continue;
        if (m.atMs <= at && (!best || m.atMs > best.atMs)) best = m;
        // Received by the time: what came before it was taken before it too.
        if (best && m.logMs <= at) break;
      }
      await it.return();
      if (best && s.type.endsWith(".CompressedVideo")) out.push(...(await this.fromKeyframe(s, best)));
      else if (best) out.push(best);
    }
    return out;
  }

  /**
   * The video frames from the keyframe at or before m up to m, in order: a P-frame alone
   * cannot be shown, so a seek decodes the run from its keyframe (at most maxRun frames).
   */
  private async fromKeyframe(s: RecordedStream, m: RecordedMessage): Promise<RecordedMessage[]> {
    const run = [m];
    if (keyframe(m.data)) return run;
    const it = this.reader.readMessages({ topics: [s.topic], endTime: nsOf(m.logMs), reverse: true });
    for (let r = await it.next(); !r.done && run.length < maxRun; r = await it.next()) {
      const e = recorded(r.value);
      if (e.channel !== s.channel || e.sequence >= m.sequence) continue;
      run.push(e);
      if (keyframe(e.data)) break;
    }
    await it.return();
    return run.reverse();
  }
}

/** The most frames a seek decodes to show a video's picture of a time: a minute at 15 fps. */
const maxRun = 900;

/** Whether a recorded CompressedVideo holds a keyframe; false for one that does not parse. */
function keyframe(data: Uint8Array): boolean {
  try {
    return isKeyframe(splitNALs(fromBinary(CompressedVideoSchema, data).data));
  } catch {
    return false;
  }
}
