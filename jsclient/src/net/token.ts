// Socket tokens: every WebSocket of the panel opens with a fresh one-use token from
// POST /panel/ws-token (the session cookie authenticates it). Tokens are never logged nor put
// in a URL: a browser writes the URL of a refused upgrade to its console. The token travels
// as a WebSocket subprotocol (socketProtocols), which the gateway reads and never echoes.

export class TokenError extends Error {
  constructor(readonly status: number) {
    super(status === 401 ? "signed out: sign in again" : `no socket token (HTTP ${status})`);
  }
}

export async function mintSocketToken(fetchImpl: typeof fetch = fetch): Promise<string> {
  const r = await fetchImpl("/panel/ws-token", {
    method: "POST",
    credentials: "same-origin",
    headers: { Accept: "application/json" },
  });
  if (!r.ok) throw new TokenError(r.status);
  const body = (await r.json()) as { accessToken?: unknown };
  if (typeof body.accessToken !== "string") throw new TokenError(r.status);
  return body.accessToken;
}

/** The ws:// or wss:// URL of an API socket on this page's host (no token in it). */
export function socketURL(path: string, params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const query = q.toString();
  return `${scheme}//${location.host}${path}${query ? "?" + query : ""}`;
}

/** The subprotocols that carry a socket token: the gateway answers with the first. */
export function socketProtocols(token: string): string[] {
  return ["fleetgate", `fleetgate.token.${token}`];
}

/**
 * The subprotocol that carries a camera's credentials for W3 (a camera opened by address):
 * the base64url (no padding) of {"username", "password"} as JSON. Like the token, never in
 * the URL, and never echoed.
 */
export function cameraProtocol(username: string, password: string): string {
  const bytes = new TextEncoder().encode(JSON.stringify({ username, password }));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return "fleetgate.camera." + btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
