// inspect.mjs reads an MCAP file with @mcap/core, the reference TypeScript reader (and
// @mcap/support for zstd and protobuf schemas), and prints what it found as one JSON document
// for the Go tests to compare with what they wrote. Usage:
//
//	node inspect.mjs indexed FILE   the summary, every channel's messages, payloads decoded
//	                                by their schema, and a seek to the middle by the chunk index
//	node inspect.mjs stream FILE    a front-to-back read, as of a file a crash cut short
import { open } from "node:fs/promises";
import { crc32 } from "node:zlib";
import { McapIndexedReader, McapStreamReader } from "@mcap/core";
import { loadDecompressHandlers, protobufFromBinaryDescriptor } from "@mcap/support";

const [mode, file] = process.argv.slice(2);
const handle = await open(file);
const size = (await handle.stat()).size;
const decompressHandlers = await loadDecompressHandlers();

// readable records the offsets read, so that a seek can show which chunks it touched.
const reads = [];
const readable = {
  size: async () => BigInt(size),
  read: async (offset, length) => {
    reads.push(offset);
    const buf = Buffer.alloc(Number(length));
    await handle.read(buf, 0, Number(length), Number(offset));
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  },
};

const out = mode === "stream" ? await stream() : await indexed();
await handle.close();
process.stdout.write(JSON.stringify(out, (_, v) => (typeof v === "bigint" ? v.toString() : v)));

async function stream() {
  const reader = new McapStreamReader({ decompressHandlers });
  const buf = Buffer.alloc(size);
  await handle.read(buf, 0, size, 0);
  reader.append(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
  const counts = {};
  let messages = 0;
  let error = "";
  try {
    for (let record; (record = reader.nextRecord()); ) {
      if (record.type === "Message") {
        messages++;
        counts[record.channelId] = (counts[record.channelId] ?? 0) + 1;
      }
    }
  } catch (e) {
    error = String(e?.message ?? e);
  }
  return { messages, counts, done: reader.done(), error };
}

async function indexed() {
  const reader = await McapIndexedReader.Initialize({ readable, decompressHandlers });
  const decoders = new Map();
  for (const [id, schema] of reader.schemasById) {
    if (schema.encoding === "protobuf") {
      const root = protobufFromBinaryDescriptor(schema.data);
      decoders.set(id, root.lookupType(schema.name));
    }
  }
  // The data section's CRC, which the indexed reader does not check.
  const data = Buffer.alloc(Number(reader.dataEndOffset));
  await handle.read(data, 0, data.length, 0);
  const channels = {};
  for (const [id, ch] of reader.channelsById) {
    channels[id] = {
      topic: ch.topic,
      messageEncoding: ch.messageEncoding,
      schemaId: ch.schemaId,
      metadata: Object.fromEntries(ch.metadata),
      count: 0,
      sequences: [],
      publishTimes: [],
      logTimes: [],
      first: null,
      last: null,
    };
  }
  for await (const m of reader.readMessages()) {
    const ch = channels[m.channelId];
    ch.count++;
    ch.sequences.push(m.sequence);
    ch.publishTimes.push(m.publishTime);
    ch.logTimes.push(m.logTime);
    const schemaId = reader.channelsById.get(m.channelId).schemaId;
    const type = decoders.get(schemaId);
    const decoded = type
      ? type.toObject(type.decode(m.data), { longs: String, enums: String, bytes: String, defaults: true })
      : { rawBase64: Buffer.from(m.data).toString("base64") };
    if (ch.first === null) ch.first = decoded;
    ch.last = decoded;
  }
  // Seek: read from the middle of the time range; only the chunks from there on are read.
  const start = reader.statistics.messageStartTime;
  const end = reader.statistics.messageEndTime;
  const middle = start + (end - start) / 2n;
  const chunkOffsets = new Set(reader.chunkIndexes.map((c) => c.chunkStartOffset));
  reads.length = 0;
  let fromMiddle = 0;
  let firstFromMiddle = null;
  let earliestFromMiddle = null;
  for await (const m of reader.readMessages({ startTime: middle })) {
    fromMiddle++;
    firstFromMiddle ??= m.logTime;
    if (earliestFromMiddle === null || m.logTime < earliestFromMiddle) earliestFromMiddle = m.logTime;
  }
  const chunksRead = new Set(reads.filter((o) => chunkOffsets.has(o))).size;
  const metadata = [];
  for await (const m of reader.readMetadata()) {
    metadata.push({ name: m.name, metadata: Object.fromEntries(m.metadata) });
  }
  return {
    metadata,
    header: reader.header,
    schemas: [...reader.schemasById.values()].map((s) => ({ id: s.id, name: s.name, encoding: s.encoding, size: s.data.length })),
    channels,
    statistics: { ...reader.statistics, channelMessageCounts: Object.fromEntries(reader.statistics.channelMessageCounts) },
    chunks: reader.chunkIndexes.length,
    compressions: [...new Set(reader.chunkIndexes.map((c) => c.compression))],
    dataSectionCrc: reader.dataSectionCrc ?? 0,
    computedDataCrc: crc32(data),
    seek: { middle, fromMiddle, firstFromMiddle, earliestFromMiddle, chunksRead },
  };
}
