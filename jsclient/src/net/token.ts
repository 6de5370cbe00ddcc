// Socket tokens: every WebSocket of the panel opens with a fresh one-use token from
// POST /panel/ws-token (the session cookie authenticates it). Tokens are never logged or put
// in any URL but the socket's own, as the access_token the API asks browsers for.

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

/** The ws:// or wss:// URL of an API socket on this page's host. */
export function socketURL(path: string, params: Record<string, string | number | undefined>, token: string): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  q.set("access_token", token);
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}?${q.toString()}`;
}
