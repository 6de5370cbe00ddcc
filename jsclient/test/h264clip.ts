// Real H.264 clips for the tests, made by Debian's ffmpeg (libx264) in a temporary directory:
// testsrc pictures in Annex B, an access unit delimiter in front of each access unit so the
// test can cut them apart as the gateway sends them (one per envelope).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nalType, NAL, splitNALs } from "../src/video/annexb.js";

export interface Clip {
  /** One Annex B access unit per picture, each starting with its delimiter's start code. */
  units: Uint8Array[];
  /** The whole stream as ffmpeg wrote it. */
  bytes: Uint8Array;
}

/** Encodes frames testsrc pictures of width x height, a keyframe every gop pictures. */
export function makeClip(opts: { width: number; height: number; frames: number; gop: number; profile: "baseline" | "high" }): Clip {
  const dir = mkdtempSync(path.join(tmpdir(), "h264clip-"));
  try {
    const out = path.join(dir, "clip.h264");
    execFileSync("ffmpeg", [
      "-hide_banner", "-loglevel", "error", "-f", "lavfi",
      "-i", `testsrc=size=${opts.width}x${opts.height}:rate=15`, "-frames:v", String(opts.frames),
      // ultrafast leaves out what makes a High profile.
      "-c:v", "libx264", "-preset", opts.profile === "high" ? "veryfast" : "ultrafast", "-tune", "zerolatency", "-profile:v", opts.profile, "-pix_fmt", "yuv420p",
      "-g", String(opts.gop), "-keyint_min", String(opts.gop), "-sc_threshold", "0",
      "-x264-params", "repeat-headers=1", "-bsf:v", "h264_metadata=aud=insert", "-f", "h264", out,
    ]);
    const bytes = new Uint8Array(readFileSync(out));
    return { units: cutAtDelimiters(bytes), bytes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function cutAtDelimiters(bytes: Uint8Array): Uint8Array[] {
  const starts: number[] = [];
  for (const u of splitNALs(bytes)) {
    // Each unit is a view into bytes: its start code is the 3 (or 4) bytes before it.
    if (nalType(u) !== NAL.aud) continue;
    const at = u.byteOffset - bytes.byteOffset - 3;
    starts.push(at > 0 && bytes[at - 1] === 0 ? at - 1 : at); // a four-byte start code

  }
  return starts.map((s, i) => bytes.subarray(s, starts[i + 1] ?? bytes.length));
}

/** What ffprobe says of a clip's first video stream. */
export function probe(bytes: Uint8Array): { profile: string; level: number; width: number; height: number; keyframes: number } {
  const dir = mkdtempSync(path.join(tmpdir(), "h264probe-"));
  try {
    const f = path.join(dir, "clip.h264");
    writeFileSync(f, bytes);
    const out = execFileSync("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=profile,level,width,height:frame=key_frame", "-of", "json", f], { encoding: "utf8" });
    const j = JSON.parse(out) as { streams: { profile: string; level: number; width: number; height: number }[]; frames: { key_frame: number }[] };
    const s = j.streams[0]!;
    return { profile: s.profile, level: s.level, width: s.width, height: s.height, keyframes: j.frames.filter((x) => x.key_frame === 1).length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
