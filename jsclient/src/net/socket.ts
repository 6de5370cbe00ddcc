// LiveSocket keeps one API WebSocket open: a fresh token per attempt, jittered backoff
// between attempts, and a state a person can read (connecting, live, stale, closed with the
// close code in words). Timers and the WebSocket constructor are injectable for tests.
import { Backoff } from "./backoff.js";
import { closeCodeWords, isFinalClose } from "./closecodes.js";
import { TokenError } from "./token.js";

export type SocketState = "connecting" | "live" | "stale" | "closed";

export interface SocketStatus {
  state: SocketState;
  /** Words for the state line: why it is closed, when the next attempt comes. */
  detail: string;
  code?: number;
}

export interface CloseInfo {
  code: number;
  reason: string;
  /** Whether the socket ever opened: a refused upgrade (401, 404, 409) never does. */
  opened: boolean;
}

interface Env {
  WebSocket: new (url: string, protocols?: string[]) => WebSocket;
  setTimeout: (f: () => void, ms: number) => unknown;
  clearTimeout: (id: unknown) => void;
  now: () => number;
}

export interface LiveSocketOptions {
  /** The socket URL. */
  url: string;
  /** The subprotocols to offer for a token (socketProtocols carries the token). */
  protocols: (token: string) => string[];
  /** Mints the one-use token of the next attempt. */
  token: () => Promise<string>;
  onMessage?: (data: ArrayBuffer | string) => void;
  onStatus?: (s: SocketStatus) => void;
  onOpen?: () => void;
  /** Called at every close; a string it returns replaces the close words in the state line. */
  onClose?: (c: CloseInfo) => Promise<string | void> | string | void;
  /** An open socket without a message for this long is "stale"; 0: never (input sockets). */
  staleAfterMs?: number;
  backoff?: Backoff;
  /** Reconnect after every close, even one that says the client was wrong (kiosk walls). */
  forever?: boolean;
  /**
   * Never reconnect: any close, and a failed first attempt, is final (teleop: control is
   * taken again only by the operator's own click, never silently).
   */
  once?: boolean;
  env?: Partial<Env>;
}

export class LiveSocket {
  private ws: WebSocket | null = null;
  private stopped = false;
  private retryTimer: unknown = null;
  private staleTimer: unknown = null;
  private openedAt = 0;
  private lastClose = "";
  private status: SocketStatus = { state: "connecting", detail: "" };
  private readonly env: Env;
  private readonly backoff: Backoff;

  constructor(private readonly opt: LiveSocketOptions) {
    this.env = {
      WebSocket: opt.env?.WebSocket ?? WebSocket,
      setTimeout: opt.env?.setTimeout ?? ((f, ms) => setTimeout(f, ms)),
      clearTimeout: opt.env?.clearTimeout ?? ((id) => clearTimeout(id as number)),
      now: opt.env?.now ?? (() => performance.now()),
    };
    this.backoff = opt.backoff ?? new Backoff();
  }

  get state(): SocketState {
    return this.status.state;
  }

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  /** Closes for good (the page goes away, the widget unmounts). */
  stop(code = 1000): void {
    this.stopped = true;
    this.env.clearTimeout(this.retryTimer);
    this.env.clearTimeout(this.staleTimer);
    const ws = this.ws;
    this.ws = null;
    if (ws && ws.readyState <= 1) ws.close(code);
    this.setStatus({ state: "closed", detail: "stopped" });
  }

  /** Sends when open; false when the frame could not go out. */
  send(data: ArrayBufferView | ArrayBuffer | string): boolean {
    if (!this.ws || this.ws.readyState !== 1) return false;
    this.ws.send(data as ArrayBuffer);
    return true;
  }

  private setStatus(s: SocketStatus): void {
    this.status = s;
    this.opt.onStatus?.(s);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    this.setStatus({ state: "connecting", detail: this.backoff.attempts ? `attempt ${this.backoff.attempts + 1}` : "" });
    let token: string;
    try {
      token = await this.opt.token();
    } catch (e) {
      let why = e instanceof TokenError ? e.message : "the gateway cannot be reached";
      // Keep why the socket closed in the first place: it says more than the failed retry.
      if (this.lastClose) why += ` (last close: ${this.lastClose})`;
      this.retry(why, undefined);
      return;
    }
    if (this.stopped) return;
    let ws: WebSocket;
    try {
      ws = new this.env.WebSocket(this.opt.url, this.opt.protocols(token));
    } catch {
      this.retry("the socket URL was refused", undefined);
      return;
    }
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      this.lastClose = "";
      this.openedAt = this.env.now();
      this.setStatus({ state: "live", detail: "" });
      this.armStale();
      this.opt.onOpen?.();
    };
    ws.onmessage = (ev: MessageEvent) => {
      if (this.status.state !== "live") this.setStatus({ state: "live", detail: "" });
      this.armStale();
      this.opt.onMessage?.(ev.data as ArrayBuffer | string);
    };
    ws.onclose = (ev: CloseEvent) => {
      if (this.ws !== ws) return; // stopped, or replaced
      this.ws = null;
      this.env.clearTimeout(this.staleTimer);
      if (opened) this.backoff.lived(this.env.now() - this.openedAt);
      void this.closed({ code: ev.code, reason: ev.reason, opened });
    };
  }

  private async closed(c: CloseInfo): Promise<void> {
    let words = closeCodeWords(c.code, c.reason);
    const custom = await this.opt.onClose?.(c);
    if (typeof custom === "string" && custom) words = custom;
    if (this.stopped) return;
    if (c.opened || !this.lastClose) this.lastClose = words;
    if (this.opt.once || (isFinalClose(c.code) && !this.opt.forever)) {
      this.setStatus({ state: "closed", detail: words, code: c.code });
      return;
    }
    this.retry(words, c.code);
  }

  private retry(why: string, code: number | undefined): void {
    if (this.stopped) return;
    if (this.opt.once) {
      const s: SocketStatus = { state: "closed", detail: why };
      if (code !== undefined) s.code = code;
      this.setStatus(s);
      return;
    }
    const delay = this.backoff.next();
    const s: SocketStatus = { state: "closed", detail: `${why}; retrying in ${Math.ceil(delay / 1000)} s` };
    if (code !== undefined) s.code = code;
    this.setStatus(s);
    this.retryTimer = this.env.setTimeout(() => void this.connect(), delay);
  }

  private armStale(): void {
    const after = this.opt.staleAfterMs ?? 0;
    if (!after) return;
    this.env.clearTimeout(this.staleTimer);
    this.staleTimer = this.env.setTimeout(() => {
      if (this.ws && this.status.state === "live") {
        this.setStatus({ state: "stale", detail: `no data for ${Math.round(after / 1000)} s` });
      }
    }, after);
  }
}
