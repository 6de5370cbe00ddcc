// A Foxglove WebSocket client made of Foxglove's own library (@foxglove/ws-protocol's
// FoxgloveClient, pinned in the repository's package.json), run by cmd/fleetgate's
// foxglove_test.go against fleetgate's Foxglove route. It prints one JSON line per event the
// test checks, and exits when its standard input closes (the test ends it so).
//
//   node foxglove-client.mjs watch URL TOPIC...    subscribe to the topics; print each channel
//                                                  and each message, decoded with the channel's
//                                                  advertised schema
//   node foxglove-client.mjs drive URL TOPIC Z     advertise TOPIC (a Twist, JSON) and publish
//                                                  angular.z = Z every 50 ms; print the statuses
//
// FOXGLOVE_TOKEN, when set, goes as the subprotocol fleetgate.token.<token> rather than in the
// URL (access_token), as a client that cannot put it in a URL sends it.
import { createInterface } from "node:readline";
import { createFileRegistry, fromBinary, toJson } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import wsProtocol from "@foxglove/ws-protocol";
import WebSocket from "ws";

const { FoxgloveClient } = wsProtocol;
const [mode, url, ...rest] = process.argv.slice(2);
const print = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const protocols = [FoxgloveClient.SUPPORTED_SUBPROTOCOL];
if (process.env.FOXGLOVE_TOKEN) protocols.push("fleetgate.token." + process.env.FOXGLOVE_TOKEN);

const ws = new WebSocket(url, protocols);
ws.on("unexpected-response", (_req, res) => {
  let body = "";
  res.on("data", (d) => (body += d));
  res.on("end", () => {
    print({ event: "refused", status: res.statusCode, body });
    process.exit(0);
  });
});
const client = new FoxgloveClient({ ws });
client.on("error", (e) => print({ event: "error", text: String(e?.message ?? e) }));
client.on("close", (e) => {
  print({ event: "close", code: e.code, reason: e.reason });
  process.exit(0);
});
client.on("serverInfo", (info) => print({ event: "serverInfo", name: info.name, capabilities: info.capabilities, supportedEncodings: info.supportedEncodings ?? [] }));
client.on("status", (s) => print({ event: "status", level: s.level, text: s.message }));
createInterface({ input: process.stdin }).on("close", () => {
  client.close();
  process.exit(0);
});

// A channel's decoder, made of its advertised schema alone: protobuf channels carry a
// FileDescriptorSet; other encodings (ROS 1 raw types) are given as their bytes, in hex.
function decoder(channel) {
  if (channel.encoding !== "protobuf") {
    return (data) => ({ bytes: data.byteLength, hex: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("hex") });
  }
  const set = fromBinary(FileDescriptorSetSchema, Buffer.from(channel.schema, "base64"));
  const desc = createFileRegistry(set).getMessage(channel.schemaName);
  if (!desc) throw new Error(`schema of ${channel.topic} has no message ${channel.schemaName}`);
  return (data) => {
    const msg = fromBinary(desc, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    const json = toJson(desc, msg);
    // A picture is summed up: its format, length and first bytes, not its base64.
    if (msg.data instanceof Uint8Array) {
      json.data = { bytes: msg.data.byteLength, head: Buffer.from(msg.data.subarray(0, 3)).toString("hex") };
    }
    return json;
  };
}

if (mode === "watch") {
  const topics = new Set(rest);
  const subs = new Map(); // subscription id -> { topic, decode }
  client.on("advertise", (channels) => {
    for (const ch of channels) {
      // A text schema (a ROS message definition) is printed too; a FileDescriptorSet is not.
      const schema = ch.encoding === "protobuf" ? "" : ch.schema;
      print({ event: "channel", id: ch.id, topic: ch.topic, encoding: ch.encoding, schemaName: ch.schemaName, schemaEncoding: ch.schemaEncoding ?? "", schema });
      if (!topics.has(ch.topic)) continue;
      let decode;
      try {
        decode = decoder(ch);
      } catch (e) {
        print({ event: "error", text: String(e.message) });
        continue;
      }
      subs.set(client.subscribe(ch.id), { topic: ch.topic, decode });
    }
  });
  client.on("message", ({ subscriptionId, timestamp, data }) => {
    const sub = subs.get(subscriptionId);
    if (!sub) return;
    try {
      print({ event: "message", topic: sub.topic, timestamp: String(timestamp), message: sub.decode(data) });
    } catch (e) {
      print({ event: "error", text: `${sub.topic}: ${e.message}` });
    }
  });
} else if (mode === "drive") {
  const [topic, z] = rest;
  client.on("serverInfo", () => {
    const id = client.advertise({ topic, encoding: "json", schemaName: "geometry_msgs/Twist" });
    print({ event: "advertised", id });
    const cmd = new TextEncoder().encode(JSON.stringify({ linear: { x: 0, y: 0, z: 0 }, angular: { x: 0, y: 0, z: Number(z) } }));
    setInterval(() => client.sendMessage(id, cmd), 50);
  });
} else {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}
