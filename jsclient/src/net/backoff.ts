// The reconnect policy every socket of the panel shares. Jitter spreads a fleet of kiosks
// that lost the same server; the floor and the "lived long enough" reset keep a socket that
// opens and dies at once from reconnecting in a tight loop.

export interface BackoffOptions {
  /** First delay, ms. */
  baseMs: number;
  /** Longest delay, ms. */
  maxMs: number;
  /** No reconnect comes sooner than this, whatever the jitter drew. */
  floorMs: number;
  /** A connection that stayed open this long resets the policy. */
  healthyAfterMs: number;
}

export const defaultBackoff: BackoffOptions = { baseMs: 500, maxMs: 30_000, floorMs: 250, healthyAfterMs: 10_000 };

/**
 * Backoff is "equal jitter" exponential backoff: the delay is half the exponential step plus
 * a random half, so it grows with every failure yet never collapses to zero.
 */
export class Backoff {
  private failures = 0;
  constructor(
    private readonly opt: BackoffOptions = defaultBackoff,
    private readonly random: () => number = Math.random,
  ) {}

  /** The delay before the next attempt; each call counts one more failure. */
  next(): number {
    const step = Math.min(this.opt.maxMs, this.opt.baseMs * 2 ** Math.min(this.failures, 30));
    this.failures++;
    const d = step / 2 + (step / 2) * this.random();
    return Math.max(this.opt.floorMs, Math.round(d));
  }

  /** Tells the policy how long the last connection lived; a healthy one resets the count. */
  lived(ms: number): void {
    if (ms >= this.opt.healthyAfterMs) this.failures = 0;
  }

  get attempts(): number {
    return this.failures;
  }
}
