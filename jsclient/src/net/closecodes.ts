// Close codes in words, for the state line under each widget. The gateway's meanings come
// from the API contract (W1/W2/W3) and DESIGN section 5. The gateway's reason, when it sends
// one, is the truth and is said alone: a code stands for several causes (1001 for a gateway
// shutting down and for a robot gone offline, 1011 for a camera failing and for a robot's
// gateway that stopped answering), and words for the wrong one mislead an operator.

const words: Record<number, string> = {
  1000: "closed normally",
  1001: "the gateway or the robot went away",
  1002: "protocol error",
  1003: "the gateway refused a frame of the wrong kind",
  1005: "closed without a reason",
  1006: "the connection was refused or dropped (no close frame)",
  1007: "the gateway refused malformed data",
  1008: "refused by policy: the token was revoked or expired, or the stream is unknown",
  1009: "a message was too big",
  1011: "the gateway could not go on with this stream",
  1012: "the gateway is restarting",
  1013: "the gateway is overloaded, try again later",
  1015: "TLS handshake failed",
};

export function closeCodeWords(code: number, reason = ""): string {
  return reason || (words[code] ?? `closed with code ${code}`);
}

/**
 * Codes after which reconnecting would only repeat our own mistake: the gateway refused what
 * this client sent. Every other close (drops, shutdowns, expired tokens) is retried.
 */
export function isFinalClose(code: number): boolean {
  return code === 1003 || code === 1007 || code === 1009;
}
