// The feed a recording's player gives the stream widgets (widgets/stream.ts Feed): each
// recorded message becomes the MessageStream envelope a W3 socket would have sent for it, so
// the widgets decode and draw it with the code that draws the live streams.
import { create, toBinary } from "@bufbuild/protobuf";
import { TimeSchema } from "../../gen/platform/messages/builtin_interfaces_pb.js";
import { Compression, MessageStreamSchema } from "../../gen/platform/stream/message_stream_pb.js";
import type { Feed, FeedHandlers, StreamRef } from "../widgets/stream.js";
import type { RecordedStream } from "./mcapsource.js";
import type { RecordedMessage } from "./player.js";

const keyOf = (component: string, stream: string): string => `${component}/${stream}`;

/** The envelope of a recorded message, as W3 frames it (uncompressed). */
export function envelopeOf(s: RecordedStream, m: RecordedMessage): ArrayBuffer {
  const sec = Math.floor(m.publishMs / 1000);
  const env = create(MessageStreamSchema, {
    componentName: s.component,
    streamName: s.stream,
    source: Number(s.source) || 0,
    dataType: s.type,
    data: m.data,
    compression: Compression.NONE,
    publishTime: create(TimeSchema, { sec, nanosec: Math.round((m.publishMs - sec * 1000) * 1e6) }),
    sequence: BigInt(m.sequence),
  });
  const bytes = toBinary(MessageStreamSchema, env);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

export class RecordingFeed implements Feed {
  readonly recorded = true;
  private readonly handlers = new Map<string, Set<FeedHandlers>>();
  private readonly byChannel: Map<number, RecordedStream>;
  /** Each stream's newest delivered message: a widget that opens later starts from it. */
  private readonly last = new Map<string, RecordedMessage>();

  /** now is the playhead: a frame's age is measured in the recording's time. */
  constructor(
    streams: RecordedStream[],
    readonly now: () => number,
  ) {
    this.byChannel = new Map(streams.map((s) => [s.channel, s]));
  }

  open(ref: StreamRef, h: FeedHandlers): { stop(): void } {
    const key = keyOf(ref.component, ref.stream);
    let set = this.handlers.get(key);
    if (!set) this.handlers.set(key, (set = new Set()));
    set.add(h);
    h.onStatus({ state: "live", detail: "" });
    const last = this.last.get(key);
    const s = last && this.byChannel.get(last.channel);
    if (last && s) h.onMessage(envelopeOf(s, last));
    return { stop: () => void set.delete(h) };
  }

  deliver(m: RecordedMessage): void {
    const s = this.byChannel.get(m.channel);
    if (!s) return;
    const key = keyOf(s.component, s.stream);
    this.last.set(key, m);
    const set = this.handlers.get(key);
    if (!set?.size) return;
    const env = envelopeOf(s, m);
    // A widget may hand its buffer to the decode worker (transferred, so gone here): each
    // widget of the stream gets a buffer of its own.
    let first = true;
    for (const h of set) {
      h.onMessage(first ? env : env.slice(0));
      first = false;
    }
  }

  /** The player jumped: widgets forget history (a pose trail). */
  reset(): void {
    this.last.clear();
    for (const set of this.handlers.values()) for (const h of set) h.onReset?.();
  }
}
