// Decoding a W3 protobuf frame, in the contract's order: parse the MessageStream envelope,
// inflate data when it is gzip-compressed, pick the typed parser by dataType, parse.
import { fromBinary, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { Compression, MessageStreamSchema } from "../../gen/platform/stream/message_stream_pb.js";
import { catalog, isKnownType, type Payload } from "./catalog.js";

export interface Frame {
  component: string;
  stream: string;
  source: number;
  dataType: string;
  sequence: bigint;
  /** Publish time in ms since the epoch; 0 when the envelope has none. */
  publishedMs: number;
  /** The typed payload; null for a type no widget knows. */
  payload: Payload | null;
}

/** Inflates gzip with the platform's DecompressionStream (browsers and Node 20 alike). */
export async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export function decodePayload(dataType: string, bytes: Uint8Array): Payload | null {
  if (!isKnownType(dataType)) return null;
  const message = fromBinary(catalog[dataType], bytes);
  return { dataType, message } as Payload;
}

export async function decodeFrame(buf: ArrayBuffer | Uint8Array): Promise<Frame> {
  const env = fromBinary(MessageStreamSchema, buf instanceof Uint8Array ? buf : new Uint8Array(buf));
  let data = env.data;
  if (env.compression === Compression.GZIP) data = await gunzip(data);
  else if (env.compression !== Compression.NONE) throw new Error(`unknown compression ${env.compression}`);
  const t = env.publishTime;
  return {
    component: env.componentName,
    stream: env.streamName,
    source: env.source,
    dataType: env.dataType,
    sequence: env.sequence,
    publishedMs: t ? t.sec * 1000 + Math.floor(t.nanosec / 1e6) : 0,
    payload: decodePayload(env.dataType, data),
  };
}

/** A typed payload from the REST stream read, which answers the message as protojson. */
export function payloadFromJSON(dataType: string, json: unknown): Payload | null {
  if (!isKnownType(dataType)) return null;
  const message = fromJson(catalog[dataType], json as JsonValue, { ignoreUnknownFields: true });
  return { dataType, message } as Payload;
}
