// Foxglove's WebSocket protocol server (@foxglove/ws-protocol on ws), the baseline of the bench
// command (scripts/bench.sh, docs/performance.md), publishing what bench/gateway's camera does:
// a fresh buffer of --frame bytes per sample at --rate per second on one channel, "camera".
// The message timestamp is the wall clock at publish, in nanoseconds, which the load client
// compares with its own clock (same machine).
//
// It prints one JSON line (url, pid) once it listens, answers each "gc" line on its standard input
// (run it with --expose-gc) after a collection, and exits when its standard input closes.
import { randomFillSync } from "node:crypto";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import wsProtocol from "@foxglove/ws-protocol";
import { WebSocketServer } from "ws";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    frame: { type: "string", default: String(150 * 1024) },
    rate: { type: "string", default: "30" },
  },
});
const frameSize = Number(values.frame);
const rate = Number(values.rate);

const { FoxgloveServer } = wsProtocol;
const server = new FoxgloveServer({ name: "fleetgate-bench" });
const wss = new WebSocketServer({
  host: "127.0.0.1",
  port: Number(values.port),
  handleProtocols: (protocols) => server.handleProtocols(protocols),
});
wss.on("connection", (conn, req) => {
  server.handleConnection(conn, `${req.socket.remoteAddress}:${req.socket.remotePort}`);
});
server.on("error", () => {}); // a client that goes away mid-send is not news
const channel = server.addChannel({
  topic: "camera",
  encoding: "protobuf",
  schemaName: "foxglove.CompressedImage",
  schema: "",
});

const template = randomFillSync(Buffer.allocUnsafe(frameSize));
// CLOCK_MONOTONIC in nanoseconds (libuv's hrtime), which the load client reads too: exact on one
// machine, where a wall clock made of performance.timeOrigin can be off by as long as the
// process waited for a CPU at start (100 ms on a loaded machine).
const monoNanos = () => process.hrtime.bigint();

if (rate > 0) {
  const period = 1000 / rate;
  const t0 = performance.now();
  let k = 0;
  const tick = () => {
    const payload = Buffer.allocUnsafe(frameSize);
    template.copy(payload);
    server.sendMessage(channel, monoNanos(), payload);
    // On schedule; a tick missed by more than a period is skipped, never caught up.
    const now = performance.now();
    do k++; while (t0 + k * period < now - period);
    setTimeout(tick, Math.max(0, t0 + k * period - now));
  };
  setTimeout(tick, period);
}

wss.on("listening", () => {
  console.log(JSON.stringify({ url: `ws://127.0.0.1:${wss.address().port}`, pid: process.pid }));
});
// Each "gc" line: collect garbage (node --expose-gc) and print the heap figures.
createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim() !== "gc") return;
  globalThis.gc?.();
  const m = process.memoryUsage();
  console.log(JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, external: m.external }));
}).on("close", () => process.exit(0));
