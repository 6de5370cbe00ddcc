// Feeding H.264 access units to a decoder, latest wins: a P-frame is never decoded without its
// reference, so after a drop (a gap in the envelopes' sequence, which the gateway keeps from
// the source) or while the decoder lags (its queue grows) the player skips to the next
// keyframe, and a keyframe arriving over a backlog throws the backlog away. The decoder
// is configured from the keyframe's SPS, again whenever the SPS changes (a camera lowered its
// resolution to fit the uplink).
import { codecString, findSPS, isKeyframe, splitNALs } from "./annexb.js";

/** What the player needs of WebCodecs' VideoDecoder (a test passes a fake). */
export interface DecoderPort {
  readonly decodeQueueSize: number;
  configure(config: { codec: string; optimizeForLatency: boolean }): void;
  decode(chunk: { type: "key" | "delta"; timestamp: number; data: Uint8Array }): void;
  /** Drops the pending work; the decoder needs configure again. */
  reset(): void;
  close(): void;
}

/** Access units may wait in the decoder's queue; past this, the decoder lags and is skipped ahead. */
export const maxDecodeQueue = 3;

export class H264Player {
  codec = "";
  width = 0;
  height = 0;
  /** Access units not decoded: waiting for a keyframe after a drop or a lag. */
  skipped = 0;
  private needKey = true;
  private lastSeq: bigint | null = null;

  /** maxQueue: past it the decoder lags (a recording's seek, which decodes a run at once, passes Infinity). */
  constructor(
    private readonly dec: DecoderPort,
    private readonly maxQueue = maxDecodeQueue,
  ) {}

  /**
   * Offers an access unit (Annex B) with its envelope's sequence and its time in µs; whether
   * it went to the decoder.
   */
  push(au: Uint8Array, seq: bigint, timestampUs: number): boolean {
    // Any other sequence than the next one: frames were dropped before us, or the stream
    // started over (a new socket); either way the next P-frame lacks its reference.
    if (this.lastSeq !== null && seq !== this.lastSeq + 1n) this.needKey = true;
    this.lastSeq = seq;
    const units = splitNALs(au);
    if (!isKeyframe(units)) {
      if (this.needKey || this.dec.decodeQueueSize > this.maxQueue) {
        this.needKey = true;
        this.skipped++;
        return false;
      }
      this.dec.decode({ type: "delta", timestamp: timestampUs, data: au });
      return true;
    }
    const sps = findSPS(units);
    if (!sps && !this.codec) {
      // A keyframe without its SPS cannot start a decoder: the contract puts one in front.
      this.skipped++;
      return false;
    }
    if (this.dec.decodeQueueSize > 0) {
      this.dec.reset(); // latest wins: what waits is older than this picture
      this.codec = "";
    }
    if (sps) {
      this.width = sps.width;
      this.height = sps.height;
      const c = codecString(sps);
      if (c !== this.codec) {
        this.dec.configure({ codec: c, optimizeForLatency: true });
        this.codec = c;
      }
    } else if (!this.codec) {
      this.skipped++;
      return false;
    }
    this.needKey = false;
    this.dec.decode({ type: "key", timestamp: timestampUs, data: au });
    return true;
  }

  close(): void {
    this.dec.close();
  }
}

/**
 * A DecoderPort over the browser's VideoDecoder. Each decoded frame goes to output, which must
 * close it promptly (a held VideoFrame holds decoder memory and stalls the decoder).
 */
export function webCodecsDecoder(output: (f: VideoFrame) => void, error: (e: Error) => void): DecoderPort {
  const d = new VideoDecoder({ output, error: (e) => error(e) });
  return {
    get decodeQueueSize() {
      return d.decodeQueueSize;
    },
    configure: (c) => d.configure(c),
    decode: (c) => d.decode(new EncodedVideoChunk(c)),
    reset: () => d.reset(),
    close: () => {
      if (d.state !== "closed") d.close();
    },
  };
}

/** Why this page cannot decode H.264 (the widget then asks for JPEG), or null when it can. */
export async function h264Unavailable(scope: {
  isSecureContext: boolean;
  VideoDecoder?: { isConfigSupported(c: { codec: string }): Promise<{ supported?: boolean }> };
}): Promise<string | null> {
  if (!scope.isSecureContext) return "this page is not a secure context (HTTPS or localhost)";
  if (!scope.VideoDecoder) return "this browser has no WebCodecs VideoDecoder";
  // Constrained baseline, level 3.1: what the gateway's encoder sends up to 1280x720.
  const r = await scope.VideoDecoder.isConfigSupported({ codec: "avc1.42E01F" }).catch(() => ({ supported: false }));
  return r.supported ? null : "this browser cannot decode H.264";
}
