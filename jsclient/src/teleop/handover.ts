// The handover extension of the input socket (docs/api.md, "Handing control over"): the
// gateway tells a holder of requests for its control, and an asker of its request's progress,
// in JSON text frames; the holder answers in the same.

/** How long a holder has to answer before the gateway refuses for it (the door's AnswerTimeout). */
export const answerTimeoutMs = 15_000;

export type HandoverKind = "asking" | "granted" | "requested" | "withdrawn" | "expired";

export interface HandoverFrame {
  handover: HandoverKind;
  by?: string;
  since?: string;
}

const kinds: ReadonlySet<string> = new Set(["asking", "granted", "requested", "withdrawn", "expired"]);

/** A handover frame from the gateway, or null for anything else. */
export function parseHandover(data: ArrayBuffer | string): HandoverFrame | null {
  if (typeof data !== "string") return null;
  try {
    const f = JSON.parse(data) as Partial<HandoverFrame>;
    return typeof f?.handover === "string" && kinds.has(f.handover) ? (f as HandoverFrame) : null;
  } catch {
    return null;
  }
}

/** The holder's answer to the pending request. */
export function answerFrame(grant: boolean): string {
  return JSON.stringify({ handover: grant ? "grant" : "refuse" });
}
