// The decode worker: large frames (point clouds, raw images) are parsed and inflated here so
// the page keeps drawing while they decode. Messages: {id, buf} in, {id, frame} or {id, error}
// out; payload bytes are transferred back, not copied.
import { decodeFrame } from "./decode/frame.js";
import { transferablesOf } from "./decode/transfer.js";

const scope = self as unknown as DedicatedWorkerGlobalScope;

scope.onmessage = async (ev: MessageEvent<{ id: number; buf: ArrayBuffer }>) => {
  const { id, buf } = ev.data;
  try {
    const frame = await decodeFrame(buf);
    scope.postMessage({ id, frame }, transferablesOf(frame));
  } catch (e) {
    scope.postMessage({ id, error: String((e as Error).message ?? e) });
  }
};
