// A fixed-size rolling history of readings for time series charts, and the percentage a
// metric response stands for.

export class History {
  private t: number[] = [];
  private v: (number | null)[][];

  constructor(
    series: number,
    private readonly keep: number,
  ) {
    this.v = Array.from({ length: series }, () => []);
  }

  push(time: number, values: (number | null)[]): void {
    this.t.push(time);
    this.v.forEach((s, i) => s.push(values[i] ?? null));
    if (this.t.length > this.keep) {
      this.t.shift();
      for (const s of this.v) s.shift();
    }
  }

  get length(): number {
    return this.t.length;
  }

  /** uPlot's columnar data: times first, then one array per series. */
  data(): [number[], ...(number | null)[][]] {
    return [this.t.slice(), ...this.v.map((s) => s.slice())];
  }
}

/**
 * A metric response's value as a percentage: usage (used of limit) or a plain number
 * (battery). Null when the metric has no value a chart can show.
 */
export function metricPercent(body: unknown): number | null {
  const m = (body as { metric?: { value?: unknown } })?.metric;
  const v = m?.value;
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  const u = v as { used?: number; limit?: number } | null;
  if (u && typeof u.used === "number" && typeof u.limit === "number" && u.limit > 0) return (100 * u.used) / u.limit;
  return null;
}
