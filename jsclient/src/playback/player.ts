// The player: reads a recording's messages ahead of the playhead and hands each to the
// widgets when the playhead reaches its log time. A seek shows at once the newest message of
// every stream at or before the new time (the camera frame of that moment, the pose), then
// plays on from there. What it reads from is a RecordingSource (the MCAP file through range
// requests, mcapsource.ts; an array in the tests), and its time a Clock, both injected.
import { Playhead, type Clock } from "./playhead.js";

export interface RecordedMessage {
  channel: number;
  /** When the recorder received it, ms since the epoch: the timeline's time. */
  logMs: number;
  /** The sample's own time (ms since the epoch). */
  publishMs: number;
  sequence: number;
  data: Uint8Array;
}

export interface RecordingSource {
  readonly startMs: number;
  readonly endMs: number;
  /** The messages from fromMs on (inclusive), in log-time order. */
  messages(fromMs: number): AsyncIterator<RecordedMessage>;
  /** The newest message of each channel at or before atMs. */
  latest(atMs: number): Promise<RecordedMessage[]>;
}

export interface PlayerOptions {
  /** How often the playhead is looked at while playing. */
  tickMs?: number;
  /** How far ahead of the playhead, in the recording's time at speed 1, messages are read. */
  aheadMs?: number;
  /** Called after every step and seek with the playhead's position. */
  onPosition?: (ms: number, playing: boolean) => void;
  /** A seek starts: what the widgets hold is not the history of what comes next. */
  onReset?: () => void;
  onError?: (e: Error) => void;
}

const maxBuffered = 2000;

export class Player {
  readonly head: Playhead;
  private buffer: RecordedMessage[] = [];
  private it: AsyncIterator<RecordedMessage> | null = null;
  private exhausted = false;
  private generation = 0;
  private timer: unknown = null;
  private readonly tickMs: number;
  private readonly aheadMs: number;

  constructor(
    private readonly src: RecordingSource,
    private readonly clock: Clock,
    private readonly deliver: (m: RecordedMessage) => void,
    private readonly opt: PlayerOptions = {},
  ) {
    this.head = new Playhead(src.startMs, src.endMs, clock);
    this.tickMs = opt.tickMs ?? 40;
    this.aheadMs = opt.aheadMs ?? 1500;
  }

  position(): number {
    return this.head.position();
  }

  play(): void {
    if (this.head.position() >= this.head.end) {
      // From the start again.
      void this.seek(this.head.start).then(() => this.play());
      return;
    }
    this.head.play();
    this.schedule();
  }

  pause(): void {
    this.head.pause();
    this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.opt.onPosition?.(this.head.position(), false);
  }

  setSpeed(x: number): void {
    this.head.setSpeed(x);
  }

  /**
   * Moves to t: every stream's newest message at or before it is delivered, and reading goes
   * on from there. A later seek overrides one still loading.
   */
  async seek(t: number): Promise<void> {
    const gen = ++this.generation;
    const at = this.head.seek(t);
    this.closeIterator();
    this.buffer = [];
    this.exhausted = false;
    this.opt.onReset?.();
    const latest = await this.src.latest(at);
    if (gen !== this.generation) return;
    latest.sort((a, b) => a.logMs - b.logMs).forEach((m) => this.deliver(m));
    this.it = this.src.messages(at);
    this.skipUpTo = at;
    this.opt.onPosition?.(this.head.position(), this.head.playing);
  }

  /** Messages at or before this time were delivered by the seek. */
  private skipUpTo = -Infinity;

  /** One look at the playhead: delivers what is due, then reads ahead. */
  async step(): Promise<void> {
    const gen = this.generation;
    this.deliverDue();
    await this.fill(gen);
    if (gen !== this.generation) return;
    this.deliverDue();
    const pos = this.head.position();
    if (pos >= this.head.end && this.buffer.length === 0) this.head.pause();
    this.opt.onPosition?.(pos, this.head.playing);
  }

  dispose(): void {
    this.pause();
    this.generation++;
    this.closeIterator();
  }

  private deliverDue(): void {
    const pos = this.head.position();
    let n = 0;
    while (n < this.buffer.length && this.buffer[n]!.logMs <= pos) n++;
    if (!n) return;
    for (const m of this.buffer.splice(0, n)) this.deliver(m);
  }

  private async fill(gen: number): Promise<void> {
    const horizon = this.head.position() + this.aheadMs * this.head.speed;
    while (this.it && !this.exhausted && this.buffer.length < maxBuffered && (this.buffer.at(-1)?.logMs ?? -Infinity) < horizon) {
      let r: IteratorResult<RecordedMessage>;
      try {
        r = await this.it.next();
      } catch (e) {
        if (gen === this.generation) this.opt.onError?.(e as Error);
        this.exhausted = true;
        return;
      }
      if (gen !== this.generation) return;
      if (r.done) {
        this.exhausted = true;
        return;
      }
      if (r.value.logMs > this.skipUpTo) this.buffer.push(r.value);
    }
  }

  private schedule(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      void this.step().then(() => {
        if (this.head.playing && this.timer === null) this.schedule();
      });
    }, this.tickMs);
  }

  private closeIterator(): void {
    const it = this.it;
    this.it = null;
    void it?.return?.()?.catch(() => undefined);
  }
}
