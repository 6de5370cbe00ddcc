// The playhead of a recording: where the player is in the recording's time (milliseconds
// since the epoch, as the file's log times), moved by a clock while it plays. The clock is
// injected, so that seek, speed and pause are tested to the millisecond.

/** The speeds a person can choose; anything else is refused. */
export const speeds = [0.5, 1, 2, 4] as const;

export interface Clock {
  /** Milliseconds on a monotonic clock (performance.now in a page). */
  now(): number;
  setTimeout(f: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

export const pageClock: Clock = {
  now: () => performance.now(),
  setTimeout: (f, ms) => setTimeout(f, ms),
  clearTimeout: (id) => clearTimeout(id as number),
};

export class Playhead {
  private anchorMedia: number;
  private anchorClock = 0;
  private running = false;
  private rate = 1;

  constructor(
    readonly start: number,
    readonly end: number,
    private readonly clock: Pick<Clock, "now">,
  ) {
    if (!(end >= start)) throw new Error(`a recording from ${start} to ${end} ms`);
    this.anchorMedia = start;
  }

  get playing(): boolean {
    return this.running && this.position() < this.end;
  }

  get speed(): number {
    return this.rate;
  }

  /** The recording's time now: it moves at speed while playing and stops at the end. */
  position(): number {
    if (!this.running) return this.anchorMedia;
    return Math.min(this.end, this.anchorMedia + (this.clock.now() - this.anchorClock) * this.rate);
  }

  /** Plays from here; from the start again when it had reached the end. */
  play(): void {
    if (this.running && this.position() < this.end) return;
    if (this.position() >= this.end) this.anchorMedia = this.start;
    this.reanchor();
    this.running = true;
  }

  pause(): void {
    this.anchorMedia = this.position();
    this.running = false;
  }

  setSpeed(x: number): void {
    if (!speeds.includes(x as (typeof speeds)[number])) throw new Error(`speed ${x}: choose one of ${speeds.join(", ")}`);
    this.anchorMedia = this.position();
    this.reanchor();
    this.rate = x;
  }

  /** Moves to t (clamped to the recording), playing on when it played. */
  seek(t: number): number {
    this.anchorMedia = Math.min(this.end, Math.max(this.start, t));
    this.reanchor();
    return this.anchorMedia;
  }

  private reanchor(): void {
    this.anchorClock = this.clock.now();
  }
}
