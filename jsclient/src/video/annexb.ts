// H.264 in Annex B, as a CompressedVideo frame carries it (one access unit, start codes, SPS and
// PPS in front of every keyframe): split into NAL units, tell a keyframe, and read the SPS for
// what WebCodecs needs to be configured (the codec string avc1.PPCCLL) and the picture's size.
// Nothing here decodes pictures: the browser's VideoDecoder does (player.ts).

/** NAL unit types this reader tells apart (ITU-T H.264 table 7-1). */
export const NAL = { slice: 1, idr: 5, sei: 6, sps: 7, pps: 8, aud: 9 } as const;

/**
 * The NAL units of an Annex B buffer, without their start codes (views into buf, not copies).
 * Zero bytes before a start code (a four-byte start code, trailing zeros) belong to no unit.
 */
export function splitNALs(buf: Uint8Array): Uint8Array[] {
  const units: Uint8Array[] = [];
  let start = -1;
  let i = 0;
  while (i + 2 < buf.length) {
    if (buf[i] === 0 && buf[i + 1] === 0 && buf[i + 2] === 1) {
      if (start >= 0) units.push(buf.subarray(start, trimZeros(buf, start, i)));
      i += 3;
      start = i;
      continue;
    }
    i++;
  }
  if (start >= 0 && start < buf.length) units.push(buf.subarray(start, trimZeros(buf, start, buf.length)));
  return units.filter((u) => u.length > 0);
}

function trimZeros(buf: Uint8Array, from: number, end: number): number {
  while (end > from && buf[end - 1] === 0) end--;
  return end;
}

export function nalType(unit: Uint8Array): number {
  return (unit[0] ?? 0) & 0x1f;
}

/** Whether an access unit starts a picture that needs no earlier one: it holds an IDR slice. */
export function isKeyframe(units: Uint8Array[]): boolean {
  return units.some((u) => nalType(u) === NAL.idr);
}

export interface SPSInfo {
  profile: number;
  constraints: number;
  level: number;
  /** The picture's size once cropped: what a viewer sees. */
  width: number;
  height: number;
}

/** WebCodecs' codec string of an SPS: avc1.PPCCLL, profile, constraint flags and level in hex. */
export function codecString(sps: Pick<SPSInfo, "profile" | "constraints" | "level">): string {
  const hex = (n: number) => n.toString(16).padStart(2, "0").toUpperCase();
  return `avc1.${hex(sps.profile)}${hex(sps.constraints)}${hex(sps.level)}`;
}

/** The first SPS of an access unit's units, parsed; null when it has none. */
export function findSPS(units: Uint8Array[]): SPSInfo | null {
  const sps = units.find((u) => nalType(u) === NAL.sps);
  return sps ? parseSPS(sps) : null;
}

/** Profiles whose SPS carries chroma format and bit depths (H.264 7.3.2.1.1). */
const highProfiles = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

/** Parses an SPS NAL unit (with its one-byte header) up to the frame cropping. */
export function parseSPS(unit: Uint8Array): SPSInfo {
  if (nalType(unit) !== NAL.sps) throw new Error(`NAL unit of type ${nalType(unit)} is not an SPS`);
  const r = new BitReader(unescapeRBSP(unit.subarray(1)));
  const profile = r.bits(8);
  const constraints = r.bits(8);
  const level = r.bits(8);
  r.ue(); // seq_parameter_set_id
  let chroma = 1;
  if (highProfiles.has(profile)) {
    chroma = r.ue();
    if (chroma === 3) r.bits(1); // separate_colour_plane_flag
    r.ue(); // bit_depth_luma_minus8
    r.ue(); // bit_depth_chroma_minus8
    r.bits(1); // qpprime_y_zero_transform_bypass_flag
    if (r.bits(1)) {
      for (let i = 0; i < (chroma === 3 ? 12 : 8); i++) if (r.bits(1)) skipScalingList(r, i < 6 ? 16 : 64);
    }
  }
  r.ue(); // log2_max_frame_num_minus4
  const pocType = r.ue();
  if (pocType === 0) r.ue();
  else if (pocType === 1) {
    r.bits(1);
    r.se();
    r.se();
    const n = r.ue();
    for (let i = 0; i < n; i++) r.se();
  }
  r.ue(); // max_num_ref_frames
  r.bits(1); // gaps_in_frame_num_value_allowed_flag
  const widthMbs = r.ue() + 1;
  const heightMapUnits = r.ue() + 1;
  const frameMbsOnly = r.bits(1);
  if (!frameMbsOnly) r.bits(1); // mb_adaptive_frame_field_flag
  r.bits(1); // direct_8x8_inference_flag
  let [left, right, top, bottom] = [0, 0, 0, 0];
  if (r.bits(1)) [left, right, top, bottom] = [r.ue(), r.ue(), r.ue(), r.ue()];
  // Crop units (7.4.2.1.1): chroma samples for 4:2:0 and 4:2:2, luma for monochrome and 4:4:4.
  const subW = chroma === 1 || chroma === 2 ? 2 : 1;
  const subH = chroma === 1 ? 2 : 1;
  const fieldFactor = 2 - frameMbsOnly;
  const cropX = chroma === 0 ? 1 : subW;
  const cropY = (chroma === 0 ? 1 : subH) * fieldFactor;
  return {
    profile,
    constraints,
    level,
    width: widthMbs * 16 - cropX * (left + right),
    height: fieldFactor * heightMapUnits * 16 - cropY * (top + bottom),
  };
}

function skipScalingList(r: BitReader, size: number): void {
  let last = 8;
  let next = 8;
  for (let j = 0; j < size; j++) {
    if (next !== 0) next = (last + r.se() + 256) % 256;
    last = next === 0 ? last : next;
  }
}

/** Removes emulation prevention bytes (00 00 03 → 00 00) from a NAL unit's payload. */
export function unescapeRBSP(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(b.length);
  let n = 0;
  let zeros = 0;
  for (const x of b) {
    if (zeros >= 2 && x === 3) {
      zeros = 0;
      continue;
    }
    out[n++] = x;
    zeros = x === 0 ? zeros + 1 : 0;
  }
  return out.subarray(0, n);
}

/** Reads bits, unsigned and Exp-Golomb codes, most significant first. */
class BitReader {
  private pos = 0;
  constructor(private readonly b: Uint8Array) {}

  bits(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const byte = this.b[this.pos >> 3];
      if (byte === undefined) throw new Error("SPS ends early");
      v = v * 2 + ((byte >> (7 - (this.pos & 7))) & 1);
      this.pos++;
    }
    return v;
  }

  ue(): number {
    let zeros = 0;
    while (this.bits(1) === 0) if (++zeros > 31) throw new Error("SPS: bad Exp-Golomb code");
    return 2 ** zeros - 1 + this.bits(zeros);
  }

  se(): number {
    const k = this.ue();
    return k % 2 ? (k + 1) / 2 : -k / 2;
  }
}
