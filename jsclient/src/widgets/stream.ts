// The stream a widget shows, as the page names it in data-* attributes, and the W3 socket
// and REST read URLs for it.
import { LiveSocket, type LiveSocketOptions, type SocketStatus } from "../net/socket.js";
import { mintSocketToken, socketProtocols, socketURL } from "../net/token.js";

export interface StreamRef {
  robotId: string;
  component: string;
  stream: string;
  source: string;
  type: string;
}

export function streamOf(el: HTMLElement): StreamRef {
  const d = el.dataset;
  if (!d.robotId || !d.stream) throw new Error("the page names no stream");
  return { robotId: d.robotId, component: d.component ?? "", stream: d.stream, source: d.source ?? "1", type: d.type ?? "" };
}

function liveParams(s: StreamRef, direction: "output" | "input"): Record<string, string> {
  return {
    componentName: s.component,
    streamName: s.stream,
    source: s.source,
    streamType: s.type,
    direction,
    format: "protobuf",
  };
}

/** A W3 socket for the stream (local gateway only). */
export function openLive(
  s: StreamRef,
  direction: "output" | "input",
  opt: Omit<LiveSocketOptions, "url" | "token" | "protocols">,
  extra: Record<string, string> = {},
  protocols: string[] = [],
): LiveSocket {
  const path = `/apigateway/v2/robots/${encodeURIComponent(s.robotId)}/streams/connect`;
  const params = { ...liveParams(s, direction), ...extra };
  const sock = new LiveSocket({
    ...opt,
    token: () => mintSocketToken(),
    url: socketURL(path, params),
    protocols: (token) => [...socketProtocols(token), ...protocols],
  });
  sock.start();
  return sock;
}

/** What a widget asks of whatever feeds it envelopes: the live socket, or a recording's player. */
export interface FeedHandlers {
  staleAfterMs?: number;
  onStatus: (s: SocketStatus) => void;
  /** A W3 frame: a MessageStream envelope (protobuf), as the socket delivers it. */
  onMessage: (data: ArrayBuffer | string) => void;
  /** The feed jumped in time (a recording was sought): what came before is not history. */
  onReset?: () => void;
}

/**
 * Where a widget's envelopes come from. The widgets take the same envelopes from the live
 * socket (liveFeed) and from a recording played in the page (jsclient/src/playback), so there
 * is one copy of the widget code. now is the time the widget's figures (a frame's age) are
 * measured against: the wall clock live, the playhead in a recording.
 */
export interface Feed {
  open(s: StreamRef, h: FeedHandlers, extra?: Record<string, string>): { stop(): void };
  now(): number;
  /** Whether this feed plays a recording (a widget then shows its frames' times). */
  readonly recorded: boolean;
}

/** The live W3 output socket. protocols are extra subprotocols (a camera's credentials). */
export function liveFeed(protocols: string[] = []): Feed {
  return {
    open: (s, h, extra = {}) => openLive(s, "output", h, extra, protocols),
    now: () => Date.now(),
    recorded: false,
  };
}

/** The stream's current value through the REST read (GET .../stream): a JSON document. */
export async function readStream(s: StreamRef, signal?: AbortSignal): Promise<unknown> {
  const q = new URLSearchParams({ componentName: s.component, streamName: s.stream, source: s.source, streamType: s.type });
  const r = await fetch(`/panel/api/robots/${encodeURIComponent(s.robotId)}/stream?${q}`, {
    credentials: "same-origin",
    headers: { Accept: "application/json" },
    ...(signal ? { signal } : {}),
  });
  if (!r.ok) throw new Error(`stream read failed (HTTP ${r.status})`);
  const body = (await r.json()) as { robotStream?: string };
  return JSON.parse(body.robotStream ?? "null");
}

export interface Descriptor {
  componentName: string;
  streamName: string;
  streamType: string;
  direction: string;
  streamSourceType: number;
  /** The W3 codecs of a camera stream ("jpeg", "h264"): endpoint 6's extension; absent for others. */
  codecs?: string[];
}

/** The robot's stream descriptors (endpoint 6 through the panel's mirror). */
export async function listStreams(robotId: string): Promise<Descriptor[]> {
  const r = await fetch(`/panel/api/robots/${encodeURIComponent(robotId)}/streams`, {
    credentials: "same-origin",
    headers: { Accept: "application/json" },
  });
  if (!r.ok) throw new Error(`stream list failed (HTTP ${r.status})`);
  return ((await r.json()) as { robotStreams?: Descriptor[] }).robotStreams ?? [];
}

const listed = new Map<string, Promise<Descriptor[]>>();

/**
 * The W3 codecs endpoint 6 lists for stream s (none when it lists none, or cannot be read).
 * The robot's list is read once per page: a fleet view's camera tiles share it.
 */
export async function codecsOf(s: StreamRef): Promise<string[]> {
  let list = listed.get(s.robotId);
  if (!list) {
    list = listStreams(s.robotId);
    listed.set(s.robotId, list);
    list.catch(() => listed.delete(s.robotId)); // a failed read is tried again by the next widget
  }
  const d = (await list.catch(() => [])).find((d) => d.componentName === s.component && d.streamName === s.stream && String(d.streamSourceType) === s.source);
  return d?.codecs ?? [];
}

export function refOf(robotId: string, d: Descriptor): StreamRef {
  return { robotId, component: d.componentName, stream: d.streamName, source: String(d.streamSourceType), type: d.streamType };
}
