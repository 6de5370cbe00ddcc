// Test doubles: a manual clock with timers, and a WebSocket the test drives by hand.

export class FakeClock {
  t = 0;
  private timers = new Map<number, { at: number; f: () => void }>();
  private nextID = 1;
  now = (): number => this.t;
  setTimeout = (f: () => void, ms: number): unknown => {
    const id = this.nextID++;
    this.timers.set(id, { at: this.t + ms, f });
    return id;
  };
  clearTimeout = (id: unknown): void => {
    this.timers.delete(id as number);
  };
  /** Moves time forward, running due timers in order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let next: [number, { at: number; f: () => void }] | undefined;
      for (const e of this.timers) if (e[1].at <= end && (!next || e[1].at < next[1].at)) next = e;
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].f();
    }
    this.t = end;
  }
  get pending(): number {
    return this.timers.size;
  }
}

export class FakeWebSocket {
  static all: FakeWebSocket[] = [];
  readyState = 0;
  binaryType = "blob";
  bufferedAmount = 0;
  sent: unknown[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  constructor(
    readonly url: string,
    readonly protocols: string[] = [],
  ) {
    FakeWebSocket.all.push(this);
  }
  send(d: unknown): void {
    this.sent.push(d);
  }
  close(code = 1000): void {
    this.readyState = 3;
    this.onclose?.({ code, reason: "" });
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.();
  }
  message(data: unknown): void {
    this.onmessage?.({ data });
  }
  drop(code: number, reason = ""): void {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
}

/** Lets pending promise callbacks run. */
export const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};
