// The speed governor as the widget sees it (docs/reliability.md, "The governor"): the robot's
// gateway holds the speed to what the operator's delay allows, and tells this page the share
// and why in {"speedLimit":{...}} frames on the input socket; this page reports the age of
// the camera picture on its screen in {"pictureAgeMs":N} frames, so a picture that lags
// counts even when the socket's round trip is short.

export interface SpeedLimit {
  scale: number; // share of the robot's limits, 0 to 1
  delayMs: number;
  why: string; // "picture 0.8 s late: 45% speed"
}

/** A speedLimit frame from the gateway, or null for anything else. */
export function parseSpeedLimit(data: ArrayBuffer | string): SpeedLimit | null {
  if (typeof data !== "string") return null;
  try {
    const f = JSON.parse(data) as { speedLimit?: Partial<SpeedLimit> };
    const l = f?.speedLimit;
    if (!l || typeof l.scale !== "number" || typeof l.why !== "string") return null;
    return { scale: l.scale, delayMs: typeof l.delayMs === "number" ? l.delayMs : 0, why: l.why };
  } catch {
    return null;
  }
}

/** The report of the picture's age: never negative (clocks that disagree), whole ms. */
export function pictureAgeFrame(ageMs: number): string {
  return JSON.stringify({ pictureAgeMs: Math.max(0, Math.round(ageMs)) });
}

/** The age of the newest picture a camera widget of robotId shows, or null without one. */
export function pictureAge(robotId: string, now: number = Date.now()): number | null {
  for (const el of document.querySelectorAll<HTMLElement>("[data-picture-at]")) {
    if (el.dataset.robotId !== robotId) continue;
    const at = Number(el.dataset.pictureAt);
    if (Number.isFinite(at)) return Math.max(0, now - at);
  }
  return null;
}
