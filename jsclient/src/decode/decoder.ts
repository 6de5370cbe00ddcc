// FrameDecoder decodes small frames on the main thread (a worker round trip costs more than
// a pose) and large ones in the decode worker, one worker per page.
import { decodeFrame, type Frame } from "./frame.js";

declare const __DECODE_WORKER__: string | undefined;

/** Frames at least this big go to the worker: point clouds and raw images, not JPEGs or poses. */
export const workerThreshold = 128 * 1024;

type Pending = { resolve: (f: Frame) => void; reject: (e: Error) => void };

let shared: Worker | null | undefined;
const pending = new Map<number, Pending>();
let nextID = 1;

function worker(): Worker | null {
  if (shared !== undefined) return shared;
  shared = null;
  if (typeof Worker === "undefined" || typeof __DECODE_WORKER__ === "undefined") return null;
  try {
    const w = new Worker(new URL(__DECODE_WORKER__, import.meta.url), { type: "module", name: "decode" });
    w.onmessage = (ev: MessageEvent<{ id: number; frame?: Frame; error?: string }>) => {
      const p = pending.get(ev.data.id);
      if (!p) return;
      pending.delete(ev.data.id);
      if (ev.data.frame) p.resolve(ev.data.frame);
      else p.reject(new Error(ev.data.error ?? "decode failed"));
    };
    w.onerror = () => {
      // A broken worker must not stall every widget: fall back to the main thread.
      shared = null;
      for (const p of pending.values()) p.reject(new Error("decode worker failed"));
      pending.clear();
    };
    shared = w;
  } catch {
    shared = null;
  }
  return shared;
}

/**
 * Decodes a W3 frame. Widgets whose frames are large once inflated (point clouds, raw
 * images) pass offMain: their frames arrive gzip-compressed and small, so size alone cannot
 * tell.
 */
export function decode(buf: ArrayBuffer, offMain = false): Promise<Frame> {
  const w = offMain || buf.byteLength >= workerThreshold ? worker() : null;
  if (!w) return decodeFrame(buf);
  const id = nextID++;
  return new Promise<Frame>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    w.postMessage({ id, buf }, [buf]);
  });
}
