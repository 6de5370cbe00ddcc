// The panel's small page behaviours: refresh a region in place, copy a secret, check JSON
// before an upload, confirm a destructive form. Everything hangs on data-* attributes.

// data-refresh="URL" data-every="ms": replace the element's content with the server's
// fragment, without reloading the page. Pauses while the tab is hidden.
export function startRefresh(root: ParentNode = document): void {
  for (const el of root.querySelectorAll<HTMLElement>("[data-refresh]")) {
    const every = Number(el.dataset.every || 2000);
    const url = el.dataset.refresh!;
    const tick = async (): Promise<void> => {
      if (!document.hidden) {
        try {
          const asked = performance.now(); // what the answer says was true at the latest then
          const r = await fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } });
          if (r.ok) {
            el.innerHTML = await r.text();
            el.dataset.loaded = String(Date.now());
            stampStates(el, asked);
          }
          el.dataset.state = r.ok ? "live" : "error";
        } catch {
          el.dataset.state = "offline"; // the content stays, and what reads it ages it
        }
      }
      setTimeout(tick, every);
    };
    setTimeout(tick, every);
  }
}

// [data-silent-ms] is a robot's state (views.RobotState): data-silent-ms is how long the
// robot's agent had not answered when the gateway rendered it. The page adds the time since,
// and past confirmWithinMs an "online" says "not confirmed for N s" instead: the panel never
// tells an operator something about a robot it has not confirmed within 2 s, also when its
// refreshes stop arriving (the gateway, or the network to it, is down) or come late. Only a
// fresh answer from the gateway says "online" again.

/** How long a robot's state may go unconfirmed (gateway.ConfirmWithin). */
export const confirmWithinMs = 2000;

/** The state silentMs after the robot's agent last answered, in the words the gateway uses. */
export function stateWords(silentMs: number): { state: "online" | "unconfirmed"; words: string } {
  if (silentMs <= confirmWithinMs) return { state: "online", words: "online" };
  return { state: "unconfirmed", words: `not confirmed for ${Math.floor(silentMs / 1000)} s` };
}

const renderedAt = new WeakMap<Element, number>();
let ageTimer: ReturnType<typeof setTimeout> | undefined;

/** Records that the states under root were rendered at `at` (performance.now() time). */
export function stampStates(root: ParentNode, at: number): void {
  for (const el of root.querySelectorAll("[data-silent-ms]")) renderedAt.set(el, at);
  ageStates();
}

/** Ages the page's robot states from now on. */
export function startStateAgeing(): void {
  // The page's own states were rendered after navigation began (performance.now()'s zero):
  // counting from there errs on the side of "not confirmed".
  stampStates(document, 0);
}

// ageStates says "not confirmed" where it is due now, and sets a timer for the next change:
// the moment the first "online" runs out (to the millisecond, not at the next tick of a poll),
// or the next whole second of a "not confirmed for N s".
function ageStates(): void {
  const now = performance.now();
  let next = Infinity;
  for (const el of document.querySelectorAll<HTMLElement>("[data-silent-ms]")) {
    if (el.dataset.robotState !== "online" && el.dataset.robotState !== "unconfirmed") continue; // offline stays offline
    if (!renderedAt.has(el)) renderedAt.set(el, now);
    const silent = Number(el.dataset.silentMs) + now - renderedAt.get(el)!;
    const { state, words } = stateWords(silent);
    if (state === "online") {
      next = Math.min(next, confirmWithinMs - silent + 1);
      continue;
    }
    next = Math.min(next, 1000 - (silent % 1000) + 1);
    el.dataset.robotState = state;
    if (el.textContent === words) continue;
    const dot = document.createElement("span");
    dot.className = "dot unknown";
    dot.setAttribute("aria-hidden", "true");
    el.replaceChildren(dot, words);
  }
  clearTimeout(ageTimer);
  if (next < Infinity) ageTimer = setTimeout(ageStates, next);
}

// data-copy="#id": copy that element's text.
export function startCopy(root: ParentNode = document): void {
  for (const b of root.querySelectorAll<HTMLElement>("[data-copy]")) {
    b.addEventListener("click", async () => {
      const src = document.querySelector(b.dataset.copy!);
      if (!src) return;
      await navigator.clipboard.writeText((src.textContent ?? "").trim());
      b.textContent = "Copied";
    });
  }
}

// form[data-json-field=name]: refuse to send when that field is not JSON.
export function startJSONCheck(root: ParentNode = document): void {
  for (const f of root.querySelectorAll<HTMLFormElement>("form[data-json-field]")) {
    f.addEventListener("submit", (ev) => {
      const field = f.elements.namedItem(f.dataset.jsonField!) as HTMLTextAreaElement | null;
      const out = f.querySelector<HTMLElement>("[data-json-error]");
      try {
        JSON.parse(field?.value ?? "");
        if (out) out.textContent = "";
      } catch (e) {
        ev.preventDefault();
        if (out) out.textContent = "Not valid JSON: " + (e as Error).message;
      }
    });
  }
}

// form[data-confirm]: ask first.
export function startConfirm(root: ParentNode = document): void {
  for (const f of root.querySelectorAll<HTMLFormElement>("form[data-confirm]")) {
    f.addEventListener("submit", (ev) => {
      if (!confirm(f.dataset.confirm!)) ev.preventDefault();
    });
  }
}

// time[data-clock]: a clock that ticks each second (the kiosk's), 24-hour, in the site's time
// zone (data-timezone, the gateway's --timezone), the zone of every time the panel shows; the
// display's own zone when the gateway does not know its zone's name.
export function startClock(root: ParentNode = document): void {
  for (const el of root.querySelectorAll<HTMLElement>("[data-clock]")) {
    const opts: Intl.DateTimeFormatOptions = { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" };
    if (el.dataset.timezone) opts.timeZone = el.dataset.timezone;
    let format: Intl.DateTimeFormat;
    try {
      format = new Intl.DateTimeFormat("en-GB", opts);
    } catch {
      delete opts.timeZone; // a zone this browser does not know
      format = new Intl.DateTimeFormat("en-GB", opts);
    }
    const tick = (): void => {
      const now = new Date();
      el.textContent = format.format(now);
      el.setAttribute("datetime", now.toISOString());
    };
    tick();
    setInterval(tick, 1000);
  }
}

// [data-alert-sound]: the kiosk's sound for a new alert. Browsers play sound only after a
// gesture on the page, so it is off until the button is clicked once (the click makes the
// AudioContext); a second click turns it off. A new alert is a key ("robot/kind") of the
// unacknowledged alerts in [data-alert-keys] that the page has not sounded yet; the keys at
// load are taken as heard. Each sound counts in the button's data-sounded (what tests read).
export function startAlertSound(root: ParentNode = document): void {
  const button = root.querySelector<HTMLButtonElement>("[data-alert-sound]");
  if (!button) return;
  let audio: AudioContext | null = null;
  let on = false;
  const keysNow = (): Set<string> => {
    const el = root.querySelector<HTMLElement>("[data-alert-keys]");
    return new Set((el?.dataset.alertKeys ?? "").split(" ").filter((k) => k !== ""));
  };
  // An alert acknowledged or cleared leaves the set: raised again, it sounds again.
  let heard = keysNow();
  const beep = (): void => {
    button.dataset.sounded = String(Number(button.dataset.sounded ?? 0) + 1);
    if (!on || !audio) return;
    const t = audio.currentTime;
    for (const [start, freq] of [[0, 880], [0.25, 660]] as const) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.3, t + start);
      gain.gain.exponentialRampToValueAtTime(0.001, t + start + 0.2);
      osc.connect(gain).connect(audio.destination);
      osc.start(t + start);
      osc.stop(t + start + 0.2);
    }
  };
  button.addEventListener("click", () => {
    on = !on;
    if (on && !audio) audio = new AudioContext();
    void audio?.resume();
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? "Sound on: new alerts chime" : "Sound off: click to hear new alerts";
  });
  new MutationObserver(() => {
    const now = keysNow();
    const fresh = [...now].some((k) => !heard.has(k));
    heard = now;
    if (fresh) beep();
  }).observe(document.body, { childList: true, subtree: true });
}
