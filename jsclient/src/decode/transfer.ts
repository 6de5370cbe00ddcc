// The buffers a decoded frame may hand to another thread without copying: the payload's
// bytes fields (image pixels, point data, grid cells) are views into one decoded buffer.
import type { Frame } from "./frame.js";

export function transferablesOf(frame: Frame): ArrayBuffer[] {
  const seen = new Set<ArrayBuffer>();
  const m = frame.payload?.message as Record<string, unknown> | undefined;
  if (m) {
    for (const v of Object.values(m)) {
      if (v instanceof Uint8Array && v.buffer instanceof ArrayBuffer) seen.add(v.buffer);
    }
  }
  return [...seen];
}
