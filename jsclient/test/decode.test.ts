import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { CompressedImageSchema, LaserScanSchema } from "../gen/platform/messages/sensor_msgs_pb.js";
import { Compression, MessageStreamSchema } from "../gen/platform/stream/message_stream_pb.js";
import { decodeFrame, gunzip, payloadFromJSON } from "../src/decode/frame.js";
import { transferablesOf } from "../src/decode/transfer.js";

async function gzip(b: Uint8Array): Promise<Uint8Array> {
  const s = new Blob([b as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(s).arrayBuffer());
}

function envelope(dataType: string, data: Uint8Array, compression = Compression.NONE): Uint8Array {
  return toBinary(
    MessageStreamSchema,
    create(MessageStreamSchema, {
      componentName: "lidar",
      streamName: "scan",
      source: 1,
      dataType,
      data,
      compression,
      publishTime: { sec: 1_700_000_000, nanosec: 250_000_000 },
      sequence: 7n,
    }),
  );
}

const scan = create(LaserScanSchema, { angleMin: -1, angleMax: 1, angleIncrement: 0.5, rangeMax: 10, ranges: [1, 2, 3, 4, 5] });

describe("decodeFrame", () => {
  it("parses the envelope and the typed payload", async () => {
    const f = await decodeFrame(envelope("Platform.Messages.sensor_msgs.LaserScan", toBinary(LaserScanSchema, scan)));
    expect(f).toMatchObject({ component: "lidar", stream: "scan", source: 1, sequence: 7n, publishedMs: 1_700_000_000_250 });
    expect(f.payload?.dataType).toBe("Platform.Messages.sensor_msgs.LaserScan");
    if (f.payload?.dataType !== "Platform.Messages.sensor_msgs.LaserScan") throw new Error("type");
    expect(f.payload.message.ranges).toEqual([1, 2, 3, 4, 5]);
  });

  it("inflates gzip data before parsing", async () => {
    const raw = toBinary(LaserScanSchema, scan);
    const f = await decodeFrame(envelope("Platform.Messages.sensor_msgs.LaserScan", await gzip(raw), Compression.GZIP));
    if (f.payload?.dataType !== "Platform.Messages.sensor_msgs.LaserScan") throw new Error("type");
    expect(f.payload.message.angleIncrement).toBe(0.5);
  });

  it("keeps the envelope of a type no widget knows", async () => {
    const f = await decodeFrame(envelope("Platform.Messages.custom.Thing", new Uint8Array([1, 2])));
    expect(f.payload).toBeNull();
    expect(f.dataType).toBe("Platform.Messages.custom.Thing");
  });

  it("rejects corrupt gzip", async () => {
    await expect(
      decodeFrame(envelope("Platform.Messages.sensor_msgs.LaserScan", new Uint8Array([0x1f, 0x8b, 1, 2, 3]), Compression.GZIP)),
    ).rejects.toThrow();
  });

  it("hands image bytes to another thread without copying", async () => {
    const img = create(CompressedImageSchema, { format: "jpeg", data: new Uint8Array(1000).fill(9) });
    const f = await decodeFrame(envelope("Platform.Messages.sensor_msgs.CompressedImage", toBinary(CompressedImageSchema, img)));
    const bufs = transferablesOf(f);
    expect(bufs).toHaveLength(1);
    if (f.payload?.dataType !== "Platform.Messages.sensor_msgs.CompressedImage") throw new Error("type");
    expect(bufs[0]).toBe(f.payload.message.data.buffer);
  });

  it("reads the REST stream read's protojson into the same typed message", () => {
    const p = payloadFromJSON("Platform.Messages.sensor_msgs.CompressedImage", { format: "jpeg", data: "AQID", header: { frameId: "cam" } });
    if (p?.dataType !== "Platform.Messages.sensor_msgs.CompressedImage") throw new Error("type");
    expect(p.message.format).toBe("jpeg");
    expect([...p.message.data]).toEqual([1, 2, 3]);
    expect(payloadFromJSON("Platform.Messages.custom.Thing", {})).toBeNull();
  });

  it("gunzip round-trips a large buffer", async () => {
    const big = new Uint8Array(1 << 18);
    for (let i = 0; i < big.length; i++) big[i] = i & 0xff;
    expect(await gunzip(await gzip(big))).toEqual(big);
  });
});
