// PointCloud2 to the flat arrays a GPU draws: positions (x, y, z) and colours (r, g, b) by
// height or intensity. Points that are not finite are skipped; at most `cap` points are kept
// (evenly strided) so a huge cloud cannot stall the tab.

export interface CloudField {
  name: string;
  offset: number;
  datatype: number;
  count: number;
}

export interface CloudMessage {
  width: number;
  height: number;
  fields: CloudField[];
  isBigendian: boolean;
  pointStep: number;
  data: Uint8Array;
}

export type ColorBy = "height" | "intensity";

export interface CloudArrays {
  positions: Float32Array;
  colors: Float32Array;
  count: number;
  /** The range the colours were scaled to. */
  min: number;
  max: number;
}

const FLOAT32 = 7;
const FLOAT64 = 8;

function reader(view: DataView, f: CloudField | undefined, little: boolean): ((base: number) => number) | null {
  if (!f) return null;
  if (f.datatype === FLOAT32) return (b) => view.getFloat32(b + f.offset, little);
  if (f.datatype === FLOAT64) return (b) => view.getFloat64(b + f.offset, little);
  if (f.datatype === 2) return (b) => view.getUint8(b + f.offset); // UINT8 intensity
  if (f.datatype === 4) return (b) => view.getUint16(b + f.offset, little);
  return null;
}

export function cloudArrays(m: CloudMessage, colorBy: ColorBy, cap = 500_000, out?: CloudArrays): CloudArrays {
  const n = m.width * m.height;
  const little = !m.isBigendian;
  const view = new DataView(m.data.buffer, m.data.byteOffset, m.data.byteLength);
  const field = (name: string) => m.fields.find((f) => f.name === name);
  const x = reader(view, field("x"), little);
  const y = reader(view, field("y"), little);
  const z = reader(view, field("z"), little);
  if (!x || !y || !z) throw new Error("the cloud has no float x, y, z fields");
  const intensity = reader(view, field("intensity"), little);
  const value = colorBy === "intensity" && intensity ? intensity : z;
  const stride = n > cap ? n / cap : 1;
  const keep = Math.min(n, cap);
  const positions = out && out.positions.length >= keep * 3 ? out.positions : new Float32Array(keep * 3);
  const colors = out && out.colors.length >= keep * 3 ? out.colors : new Float32Array(keep * 3);
  const values = new Float32Array(keep);
  let count = 0;
  let min = Infinity;
  let max = -Infinity;
  const maxIndex = Math.floor(m.data.byteLength / m.pointStep);
  for (let k = 0; k < keep; k++) {
    const i = Math.floor(k * stride);
    if (i >= maxIndex) break;
    const b = i * m.pointStep;
    const px = x(b);
    const py = y(b);
    const pz = z(b);
    if (!Number.isFinite(px) || !Number.isFinite(py) || !Number.isFinite(pz)) continue;
    positions[count * 3] = px;
    positions[count * 3 + 1] = py;
    positions[count * 3 + 2] = pz;
    const v = value(b);
    values[count] = v;
    if (v < min) min = v;
    if (v > max) max = v;
    count++;
  }
  const span = max > min ? max - min : 1;
  for (let k = 0; k < count; k++) {
    const [r, g, b] = ramp((values[k]! - min) / span);
    colors[k * 3] = r;
    colors[k * 3 + 1] = g;
    colors[k * 3 + 2] = b;
  }
  return { positions, colors, count, min: count ? min : 0, max: count ? max : 0 };
}

/** Blue (low) through green to red (high). */
export function ramp(t: number): [number, number, number] {
  const c = Math.max(0, Math.min(1, t));
  return [Math.min(1, Math.max(0, 1.5 - Math.abs(4 * c - 3))), Math.min(1, Math.max(0, 1.5 - Math.abs(4 * c - 2))), Math.min(1, Math.max(0, 1.5 - Math.abs(4 * c - 1)))];
}
