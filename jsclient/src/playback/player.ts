// The player: reads a recording's messages ahead of the playhead and hands each to the
// widgets when the playhead reaches its log time. Reading goes on beside the ticks that
// deliver (a slow read never holds up what is already read); when the playhead catches up
// with what was read, it waits there (buffering) rather than run past frames it never showed. A seek shows at once the newest message of
// every stream at or before the new time (the camera frame of that moment, the pose), then
// plays on from there. What it reads from is a RecordingSource (the MCAP file through range
// requests, mcapsource.ts; an array in the tests), and its time a Clock, both injected.
import { Playhead, type Clock } from "./playhead.js";

export interface RecordedMessage {
  channel: number;
  /**
   * Its time on the timeline, ms since the epoch: when it was taken (its publish time), or
   * when the recorder received it (its log time) when the two disagree by more than a second
   * (a robot whose clock is off). The camera frame "of a time" is the one taken then, not the
   * one that reached the recorder then (a frame takes tens of ms to render and travel).
   */
  atMs: number;
  /** When the recorder received it, ms since the epoch: the file's order. */
  logMs: number;
  /** The sample's own time (ms since the epoch). */
  publishMs: number;
  sequence: number;
  data: Uint8Array;
}

export interface RecordingSource {
  readonly startMs: number;
  readonly endMs: number;
  /** The messages received from fromMs on (inclusive), in log-time order. */
  messages(fromMs: number): AsyncIterator<RecordedMessage>;
  /** The newest message of each channel whose atMs is at or before at. */
  latest(at: number): Promise<RecordedMessage[]>;
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
  private filling = false;
  /** The log time of the last message delivered (or sought to): where a starved playhead waits. */
  private lastDelivered = -Infinity;
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
    this.filling = false; // the old read ends at its next message
    const at = this.head.seek(t);
    this.closeIterator();
    this.buffer = [];
    this.exhausted = false;
    this.opt.onReset?.();
    const latest = await this.src.latest(at);
    if (gen !== this.generation) return;
    // Streams in the order of their times; a video's run from its keyframe in its own order
    // (a frame's time may be a little off the one before: it is a P-frame's reference).
    const runs = new Map<number, RecordedMessage[]>();
    for (const m of latest) runs.set(m.channel, [...(runs.get(m.channel) ?? []), m]);
    [...runs.values()].sort((a, b) => a.at(-1)!.atMs - b.at(-1)!.atMs).forEach((run) => run.forEach((m) => this.deliver(m)));
    this.it = this.src.messages(at);
    this.skipUpTo = this.lastDelivered = at;
    this.kickFill(); // read ahead now: play starts from read messages
    this.opt.onPosition?.(this.head.position(), this.head.playing);
  }

  /** Messages of this time or older are not delivered after the seek: it showed the newest. */
  private skipUpTo = -Infinity;

  /** One look at the playhead: delivers what is due, and reads on ahead of it. */
  step(): void {
    this.deliverDue();
    if (this.head.playing && this.it && !this.exhausted && this.buffer.length === 0) {
      this.head.seek(this.lastDelivered); // starved: wait where the read messages end
    }
    this.kickFill();
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
    // The file's order is the recorder's (log time); a message taken a little earlier than
    // the one before it is not held up behind it.
    const due = this.buffer.filter((m) => m.atMs <= pos);
    if (due.length) this.buffer = this.buffer.filter((m) => m.atMs > pos);
    for (const m of due) this.deliver(m);
    // Read past pos: all up to it is shown. Else only up to the last message delivered.
    if (this.buffer.length) this.lastDelivered = pos;
    else if (due.length) this.lastDelivered = Math.max(this.lastDelivered, due.at(-1)!.atMs);
  }

  private kickFill(): void {
    if (this.filling || !this.it || this.exhausted) return;
    this.filling = true;
    const gen = this.generation;
    void this.fill(gen).finally(() => {
      if (gen === this.generation) this.filling = false;
    });
  }

  private async fill(gen: number): Promise<void> {
    // The horizon moves with the playhead: a long read keeps going while it plays.
    const horizon = () => this.head.position() + this.aheadMs * this.head.speed;
    while (this.it && !this.exhausted && this.buffer.length < maxBuffered && (this.buffer.at(-1)?.atMs ?? -Infinity) < horizon()) {
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
      if (r.value.atMs > this.skipUpTo) this.buffer.push(r.value); // older ones the seek showed, or skipped
    }
  }

  private schedule(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.step();
      if (this.head.playing && this.timer === null) this.schedule();
    }, this.tickMs);
  }

  private closeIterator(): void {
    const it = this.it;
    this.it = null;
    void it?.return?.()?.catch(() => undefined);
  }
}
