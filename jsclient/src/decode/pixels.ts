// Raw sensor_msgs/Image pixels to RGBA for a canvas. Rows may be padded (step), and mono16
// may be big-endian; 16-bit depth is scaled by the frame's own maximum so it stays visible.

export function rawToRGBA(
  encoding: string,
  width: number,
  height: number,
  step: number,
  data: Uint8Array,
  bigEndian = false,
): Uint8ClampedArray<ArrayBuffer> {
  const out = new Uint8ClampedArray(width * height * 4);
  const px = bytesPerPixel(encoding);
  if (step < width * px || data.length < step * (height - 1) + width * px) {
    throw new Error(`image data too short for ${width}x${height} ${encoding}`);
  }
  let max16 = 1;
  if (px === 2) {
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) max16 = Math.max(max16, read16(data, y * step + x * 2, bigEndian));
  }
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * step + x * px;
      const o = (y * width + x) * 4;
      switch (encoding) {
        case "rgb8":
        case "rgba8":
          out[o] = data[i]!;
          out[o + 1] = data[i + 1]!;
          out[o + 2] = data[i + 2]!;
          break;
        case "bgr8":
        case "bgra8":
          out[o] = data[i + 2]!;
          out[o + 1] = data[i + 1]!;
          out[o + 2] = data[i]!;
          break;
        case "mono8":
        case "8UC1":
          out[o] = out[o + 1] = out[o + 2] = data[i]!;
          break;
        default: {
          const v = Math.round((read16(data, i, bigEndian) / max16) * 255);
          out[o] = out[o + 1] = out[o + 2] = v;
        }
      }
      out[o + 3] = 255;
    }
  }
  return out;
}

function bytesPerPixel(encoding: string): number {
  switch (encoding) {
    case "rgb8":
    case "bgr8":
      return 3;
    case "rgba8":
    case "bgra8":
      return 4;
    case "mono8":
    case "8UC1":
      return 1;
    case "mono16":
    case "16UC1":
      return 2;
  }
  throw new Error(`unsupported image encoding ${encoding}`);
}

function read16(d: Uint8Array, i: number, be: boolean): number {
  return be ? (d[i]! << 8) | d[i + 1]! : d[i]! | (d[i + 1]! << 8);
}
