// CommandSender paces teleop commands to the gateway's rules (DESIGN section 5): a held
// command is resent every periodMs (15 Hz, well inside the 500 ms deadman), non-zero
// commands go out at least minGapMs apart (at most 20 a second; faster input coalesces to
// the newest), and a release sends one zero at once.
import { isZero, zero, type Command } from "./mapping.js";

export interface SenderEnv {
  now: () => number;
  setTimeout: (f: () => void, ms: number) => unknown;
  clearTimeout: (id: unknown) => void;
}

const realEnv: SenderEnv = {
  now: () => performance.now(),
  setTimeout: (f, ms) => setTimeout(f, ms),
  clearTimeout: (id) => clearTimeout(id as number),
};

export class CommandSender {
  private current: Command = zero;
  private lastSent = -Infinity;
  private lastWasZero = true;
  private timer: unknown = null;
  private timerDue = Infinity;

  constructor(
    /** Puts one command on the wire; false when it could not (socket down). */
    private readonly send: (c: Command) => boolean,
    private readonly periodMs = 66,
    private readonly minGapMs = 50,
    private readonly env: SenderEnv = realEnv,
  ) {}

  /** The newest command from the hands; call it as often as input changes. */
  set(c: Command): void {
    if (isZero(c)) {
      this.release();
      return;
    }
    this.current = c;
    const wait = this.lastSent + this.minGapMs - this.env.now();
    if (wait <= 0) {
      this.fire();
    } else {
      this.schedule(wait);
    }
  }

  /** Stops: one zero now (if anything moved) and no more resends. */
  release(): void {
    this.current = zero;
    this.cancel();
    if (!this.lastWasZero) {
      this.send(zero);
      this.lastWasZero = true;
    }
  }

  get holding(): boolean {
    return !isZero(this.current);
  }

  private fire(): void {
    this.cancel();
    if (isZero(this.current)) return;
    this.send(this.current);
    this.lastSent = this.env.now();
    this.lastWasZero = false;
    this.schedule(this.periodMs);
  }

  private schedule(ms: number): void {
    const due = this.env.now() + ms;
    if (this.timer !== null && this.timerDue <= due) return; // an earlier send is coming
    this.cancel();
    this.timerDue = due;
    this.timer = this.env.setTimeout(() => {
      this.timer = null;
      this.timerDue = Infinity;
      this.fire();
    }, ms);
  }

  private cancel(): void {
    if (this.timer !== null) this.env.clearTimeout(this.timer);
    this.timer = null;
    this.timerDue = Infinity;
  }
}
