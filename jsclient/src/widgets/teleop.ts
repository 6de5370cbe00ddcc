// The teleop widget: drives the robot's input stream over W3 (one socket, binary protobuf
// commands) from a gamepad (deadman held), the keyboard (WASD/arrows) or a touch joystick,
// scaled by speed sliders. CommandSender paces what goes out.
//
// Safety rules, each because a robot that keeps moving when a person lets go is the worst
// bug a teleop panel can have:
//   - Control is taken only by the operator's click ("Take control"), never by the page on
//     its own: the socket never reconnects, and an operator waiting for a busy robot does not
//     get it silently when the other one leaves.
//   - While this page drives, a Stop button is on screen whatever the scroll position, and
//     Space or Escape anywhere on the page does the same: a zero at once, then control is
//     released (the gateway zeroes on the close as well).
//   - Keys are read on the window, so a key released over another element is seen; and a key
//     counts only while the browser keeps confirming it (HeldKeys), so a lost keyup cannot
//     drive forever. Focus leaving the widget, the window losing focus, the tab hiding, the
//     pointer leaving the page, a resize, a gamepad going away or the socket dropping each send
//     the zero and stop resending.
//   - Handing over (the socket's handover extension): another operator may ask this page for
//     control, and this page may ask the holder; a grant ends this page's control with the
//     gateway's zero before the new holder's first command, and an asking page sends nothing
//     until it is granted. An organization admin may take control from anyone; the page that
//     lost it says who took it (the close reason).
//   - The speed governor: the robot's gateway slows the robot as the operator's picture lags
//     and holds it beyond 2 s; this page reports the age of the camera picture it shows and
//     says the limit and why, with a banner when the robot is held.
import type { LiveSocket } from "../net/socket.js";
import { holderOf, type ControlItem } from "../teleop/controls.js";
import { answerFrame, answerTimeoutMs, parseHandover, type HandoverFrame } from "../teleop/handover.js";
import { parseSpeedLimit, pictureAge, pictureAgeFrame, type SpeedLimit } from "../teleop/governor.js";
import { HeldKeys, driveKeys, isEditable } from "../teleop/keys.js";
import { encodeCommand, gamepadCommand, inputKind, joystickCommand, keysCommand, zero, type Command, type Limits } from "../teleop/mapping.js";
import { CommandSender } from "../teleop/sender.js";
import { goalEvent, type GoalEventDetail } from "../teleop/goalevent.js";

import { mountCamera } from "./camera.js";
import { StatusLine } from "./status.js";
import { listStreams, openLive, refOf, streamOf } from "./stream.js";

/** How often the widget asks who holds the stream while it does not drive. */
const holderPollMs = 2000;

export function mountTeleop(el: HTMLElement): void {
  const ref = streamOf(el);
  const kind = inputKind(ref.type);
  if (!kind) throw new Error(`cannot drive a ${ref.type}`);
  const deadman = Number(el.dataset.deadmanButton ?? 4); // LB on a standard-mapping pad

  const status = new StatusLine(el);
  const panel = document.createElement("div");
  panel.className = "teleop";
  const control = document.createElement("div");
  control.className = "teleop-control";
  const take = button("Take control", "take");
  const stop = button("Stop and release (Space)", "stop");
  // Asking the holder and taking over work here and through the cloud alike: the robot's own
  // gateway decides, the cloud carries the request, the notices and the answer.
  const handsOver = true;
  const ask = button("Ask for control", "ask");
  const override = button("Take over (admin)", "override");
  const holder = document.createElement("p");
  holder.className = "teleop-holder";
  holder.setAttribute("aria-live", "polite");
  const request = requestBox();
  // The governor's limit and why; a banner when it holds the robot.
  const limit = document.createElement("p");
  limit.className = "teleop-limit";
  limit.setAttribute("aria-live", "polite");
  limit.hidden = true;
  control.append(take, ask, override, stop, holder, limit, request.el);
  const help = document.createElement("p");
  help.className = "muted";
  help.textContent = el.dataset.compact
    ? "Take control, then WASD or the arrows here, the joystick, or a gamepad with LB held. Space or Escape stops."
    : `Take control, then hold LB (button ${deadman}) and use the left stick, or use WASD or the arrows here, or drag the joystick. Space or Escape stops.`;
  // The sliders end at the speeds the robot declares (the gateway clamps to them anyway).
  const maxLinear = positive(el.dataset.maxLinear, 1);
  const maxAngular = positive(el.dataset.maxAngular, kind === "twist" ? 1.5 : 0.5);
  const linear = slider("Top speed", "m/s", Math.min(kind === "twist" ? 1.5 : 2, maxLinear), 0.05, maxLinear);
  const angular = slider(kind === "twist" ? "Top turn rate" : "Top steering", kind === "twist" ? "rad/s" : "rad",
    Math.min(kind === "twist" ? 1.5 : 0.5, maxAngular), 0.05, maxAngular);
  const stick = joystick();
  const pad = document.createElement("p");
  pad.className = "gamepad-state";
  pad.textContent = "no gamepad";
  const camera = document.createElement("div");
  camera.className = "teleop-camera";
  panel.append(control, help, linear.label, angular.label, stick.el, pad);
  el.append(panel, camera, status.el);
  el.tabIndex = 0;

  // The stop that stays on screen while this page drives, wherever the page is scrolled.
  const floatingStop = button("STOP", "floating-stop");
  floatingStop.className = "teleop-stop-floating";
  floatingStop.hidden = true;
  floatingStop.setAttribute("aria-label", "Stop the robot and release control");
  document.body.append(floatingStop);

  const limits = (): Limits => ({ linear: Number(linear.input.value), angular: Number(angular.input.value) });
  let socket: LiveSocket | null = null;
  /** Whether this page's socket drives: false while it asks the holder. */
  let granted = false;
  let sentCount = 0;
  let drivingSince: Date | null = null;
  const sender = new CommandSender((c: Command) => {
    const ok = socket?.send(encodeCommand(kind, c, limits())) ?? false;
    if (ok) el.dataset.sent = String(++sentCount);
    el.dataset.command = `${c.forward.toFixed(2)},${c.turn.toFixed(2)}`;
    status.figures(
      c.forward || c.turn ? `driving: forward ${c.forward.toFixed(2)}, turn ${c.turn.toFixed(2)} (of the top speeds)` : "stopped",
    );
    return ok;
  });

  const keys = new HeldKeys(() => performance.now());
  let paused = false;
  /** Zero now and no more resends; control is kept. */
  const stopAll = (why: string): void => {
    keys.clear();
    stick.reset();
    sender.release();
    el.dataset.stopped = why;
  };

  const inControl = (): boolean => socket !== null && socket.state !== "closed";
  const showControl = (): void => {
    const driving = inControl();
    const heldByOther = !driving && el.dataset.heldBy !== undefined;
    take.hidden = driving;
    ask.hidden = !(handsOver && heldByOther);
    override.hidden = !(handsOver && heldByOther && el.dataset.supervisor === "1");
    stop.hidden = !driving;
    floatingStop.hidden = !driving;
    el.dataset.control = driving ? (granted ? "held" : "asking") : "released";
    if (!driving) request.hide();
  };
  showControl();

  /** Zero, then close the socket: the gateway zeroes on the close too and frees the stream. */
  const release = (why: string): void => {
    stopAll(why);
    delete el.dataset.ended;
    const s = socket;
    socket = null;
    granted = false;
    drivingSince = null;
    s?.stop(1000);
    showControl();
    status.figures("not driving");
    void refreshHolder();
  };

  /** The state line says another operator holds the robot (this page's click was refused). */
  let refused = false;
  /** Once this page drives, or nobody does, the refusal is old news: the state line drops it. */
  const forgetRefusal = (now: string): void => {
    if (!refused) return;
    refused = false;
    status.figures(now);
  };
  const showHolder = (h: ControlItem | null): void => {
    try {
      holderLine(h);
    } finally {
      showControl();
    }
  };
  const holderLine = (h: ControlItem | null): void => {
    if (inControl() && !granted) return; // the request's own words stay
    if (inControl() && socket?.state === "live") {
      holder.textContent = `You drive${drivingSince ? " since " + drivingSince.toLocaleTimeString() : ""}.`;
      delete el.dataset.heldBy; // held by another operator: this page's own control is data-control
      forgetRefusal("stopped");
      return;
    }
    if (!h) forgetRefusal("");
    // Why the gateway ended this page's control (handed over, taken by an admin, refused)
    // stays said until the operator acts again.
    const ended = el.dataset.ended ? `Not driving: ${el.dataset.ended}. ` : "";
    if (h) {
      holder.textContent = `${ended}${h.owner} drives since ${new Date(h.since).toLocaleTimeString()}.`;
      el.dataset.heldBy = h.owner;
      return;
    }
    holder.textContent = `${ended}Nobody drives this robot.`;
    delete el.dataset.heldBy;
  };
  const refreshHolder = async (): Promise<ControlItem | null> => {
    const h = await holderOf(ref.robotId, ref.component, ref.stream, Number(ref.source)).catch(() => null);
    showHolder(h);
    return h;
  };
  void refreshHolder();
  window.setInterval(() => {
    if (!document.hidden && !inControl()) void refreshHolder();
  }, holderPollMs);

  take.addEventListener("click", async () => {
    if (inControl()) return;
    take.disabled = true;
    // Ask first: a refused upgrade tells a browser nothing but 1006.
    const h = await refreshHolder();
    take.disabled = false;
    if (h) {
      status.figures(`controlled by another operator (${h.owner}); take control when they release it`);
      refused = true;
      return;
    }
    connect("answer");
  });
  ask.addEventListener("click", () => {
    if (!inControl()) connect("request");
  });
  override.addEventListener("click", () => {
    if (!inControl()) connect("override");
  });

  /** What a handover frame changes: the request this page made, or one made of it. */
  const onHandover = (f: HandoverFrame): void => {
    switch (f.handover) {
      case "asking":
        holder.textContent = `Asked ${el.dataset.heldBy ?? "the holder"} for control; waiting for an answer (at most ${answerTimeoutMs / 1000} s).`;
        break;
      case "granted":
        granted = true;
        drivingSince = new Date();
        showHolder(null);
        el.focus();
        break;
      case "requested":
        request.show(f.by ?? "another operator", f.since ? new Date(f.since) : new Date());
        el.dataset.request = f.by ?? "";
        break;
      case "withdrawn":
      case "expired":
        request.hide();
        delete el.dataset.request;
        holder.textContent =
          f.handover === "expired" ? `${f.by}'s request went unanswered: refused. You drive.` : `${f.by} no longer asks. You drive.`;
        break;
    }
  };
  request.onAnswer = (grant) => {
    if (grant) stopAll("handed over"); // a zero first; the gateway zeroes and ends this control too
    socket?.send(answerFrame(grant));
    request.hide();
    delete el.dataset.request;
  };

  /** Shows the governor's limit (null: none, not driving). */
  const showLimit = (l: SpeedLimit | null): void => {
    limit.hidden = !l;
    limit.classList.toggle("teleop-limit-held", l?.scale === 0);
    limit.textContent = l ? (l.scale === 0 ? `Robot held: ${l.why}` : `Speed limit ${Math.round(l.scale * 100)}%: ${l.why}`) : "";
    if (l) el.dataset.speedScale = String(l.scale);
    else delete el.dataset.speedScale;
  };
  // While the robot drives itself to a goal sent from the map (goals.ts), the lease is kept
  // alive with zeros: the gateway's deadman cancels the goal when they stop (this page gone).
  let goalActive = false;
  window.addEventListener(goalEvent, (ev) => {
    const d = (ev as CustomEvent<GoalEventDetail>).detail;
    if (d.robotId === ref.robotId) goalActive = d.active;
  });
  setInterval(() => {
    if (goalActive && granted && socket?.state === "live" && !sender.holding) socket.send(encodeCommand(kind, zero, limits()));
  }, 200);
  // The age of the picture on screen goes to the gateway four times a second while driving.
  setInterval(() => {
    if (!granted || socket?.state !== "live") return;
    const age = pictureAge(ref.robotId);
    if (age !== null) socket.send(pictureAgeFrame(age));
  }, 250);

  /** Opens the input socket: taking a free stream, asking its holder, or taking it over. */
  const connect = (mode: "answer" | "request" | "override"): void => {
    granted = false;
    delete el.dataset.ended;
    let mine: LiveSocket | null = null; // the callbacks run before openLive returns, too
    mine = openLive(
      ref,
      "input",
      {
        once: true,
        onMessage: (data) => {
          if (socket !== mine) return;
          const l = parseSpeedLimit(data);
          if (l) return showLimit(l);
          const f = parseHandover(data);
          if (f) onHandover(f);
        },
        onStatus: (s) => {
          status.socketStatus(s);
          if (socket !== mine) return; // released already: release() said why
          if (s.state === "live" && mode !== "request" && !granted) {
            granted = true;
            drivingSince = new Date();
            showHolder(null);
          }
          if (s.state === "closed") {
            showLimit(null);
            // The gateway ended control (its words are in the state line: a robot's gateway
            // that stopped answering, a robot gone offline, the control handed over or taken
            // by an admin...): this page drives no more, and says so at once rather than
            // leaving the last "driving" on screen.
            stopAll("socket");
            socket = null;
            granted = false;
            drivingSince = null;
            showControl();
            status.figures("not driving");
            el.dataset.ended = s.detail || "the connection closed";
            holder.textContent = `Not driving: ${el.dataset.ended}.`;
            void refreshHolder();
          }
        },
        onClose: async (c) => {
          if (c.opened) return;
          // A refused upgrade: if someone took the stream meanwhile, say who.
          const h = await refreshHolder();
          return h ? `controlled by another operator (${h.owner})` : undefined;
        },
      },
      { handover: mode },
    );
    socket = mine;
    showControl();
    el.focus();
  };
  stop.addEventListener("click", () => release("stop"));
  floatingStop.addEventListener("click", () => release("stop"));

  // Keys, on the window: a keyup is seen wherever focus went.
  const inWidget = (t: EventTarget | null): boolean => t instanceof Node && el.contains(t);
  window.addEventListener(
    "keydown",
    (ev) => {
      if (ev.code === "Escape" || (ev.code === "Space" && !isEditable(ev.target))) {
        if (!inControl()) return;
        ev.preventDefault();
        release(ev.code === "Escape" ? "escape" : "space");
        return;
      }
      if (!driveKeys.has(ev.code) || isEditable(ev.target)) return;
      // A drive key drives only when aimed at this widget; its repeats are taken anywhere,
      // but focus leaving the widget already stopped it (focusout below).
      if (!inWidget(ev.target) && !keys.has(ev.code)) return;
      ev.preventDefault();
      keys.down(ev.code, ev.repeat);
    },
    true,
  );
  window.addEventListener("keyup", (ev) => keys.up(ev.code), true);
  el.addEventListener("focusout", (ev) => {
    if (!inWidget(ev.relatedTarget)) stopAll("focus");
  });
  document.addEventListener("visibilitychange", () => {
    paused = document.hidden;
    if (paused) stopAll("hidden");
  });
  window.addEventListener("blur", () => {
    paused = true;
    stopAll("blur");
  });
  window.addEventListener("focus", () => (paused = false));
  document.documentElement.addEventListener("pointerleave", () => stopAll("pointer left the page"));
  // A new window size changes what the operator sees (a phone turned, a window snapped): stop.
  // A resize event that leaves the size as it was changes nothing the operator sees, and
  // leaves the driver driving: Chromium sends one when a screenshot of the whole page (a
  // DevTools capture beyond the window) resizes the view and back within one frame. The page's
  // own layout (the camera's first picture, a line appearing, the page outgrowing the window)
  // sends no resize event at all.
  let windowSize = `${window.innerWidth}x${window.innerHeight}`;
  window.addEventListener("resize", () => {
    const size = `${window.innerWidth}x${window.innerHeight}`;
    if (size === windowSize) return;
    windowSize = size;
    stopAll("resize");
  });
  window.addEventListener("gamepaddisconnected", () => stopAll("gamepad"));
  window.addEventListener("pagehide", () => release("page closed"));

  const loop = (): void => {
    let c: Command = zero;
    const gp = firstGamepad();
    pad.textContent = gp ? `${gp.id}: ${gp.buttons[deadman]?.pressed ? "deadman held" : "hold the deadman to drive"}` : "no gamepad";
    if (!paused && granted && socket?.state === "live") {
      const fromPad = gp ? gamepadCommand(gp.axes, gp.buttons, deadman) : zero;
      const fromStick = stick.command();
      c = fromPad.forward || fromPad.turn ? fromPad : fromStick.forward || fromStick.turn ? fromStick : keysCommand(keys.held());
    }
    sender.set(c);
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);

  // The robot's camera beside the controls, when it has one (the operate screen, compact,
  // shows its camera large already).
  if (el.dataset.compact) return;
  void listStreams(ref.robotId)
    .then((ds) => {
      const cam = ds.find((d) => d.direction === "output" && /\.(CompressedImage|Image)$/.test(d.streamType));
      if (!cam) return;
      const r = refOf(ref.robotId, cam);
      Object.assign(camera.dataset, { robotId: r.robotId, component: r.component, stream: r.stream, source: r.source, type: r.type });
      if (el.dataset.via) camera.dataset.via = el.dataset.via;
      mountCamera(camera);
    })
    .catch(() => undefined);
}

function button(text: string, action: string): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  b.dataset.action = action;
  return b;
}

/** The request another operator made for this page's control: who, since when, and the answer. */
function requestBox() {
  const el = document.createElement("div");
  el.className = "teleop-request";
  el.setAttribute("role", "alertdialog");
  el.setAttribute("aria-live", "assertive");
  el.hidden = true;
  const words = document.createElement("p");
  const grant = button("Hand over", "grant");
  const refuse = button("Refuse", "refuse");
  el.append(words, grant, refuse);
  let timer = 0;
  const box = {
    el,
    onAnswer: (_grant: boolean): void => undefined,
    show(by: string, since: Date): void {
      const left = (): number => Math.max(0, Math.ceil((since.getTime() + answerTimeoutMs - Date.now()) / 1000));
      const say = (): void => {
        words.textContent = `${by} asks for control (since ${since.toLocaleTimeString()}); refused in ${left()} s without an answer.`;
      };
      say();
      window.clearInterval(timer);
      timer = window.setInterval(say, 1000);
      el.hidden = false;
    },
    hide(): void {
      window.clearInterval(timer);
      el.hidden = true;
    },
  };
  grant.addEventListener("click", () => box.onAnswer(true));
  refuse.addEventListener("click", () => box.onAnswer(false));
  return box;
}

function firstGamepad(): Gamepad | null {
  const pads = navigator.getGamepads?.() ?? [];
  for (const p of pads) if (p && p.connected) return p;
  return null;
}

function positive(v: string | undefined, fallback: number): number {
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

function slider(name: string, unit: string, value: number, min: number, max: number) {
  const label = document.createElement("label");
  const input = document.createElement("input");
  input.type = "range";
  input.min = String(min);
  input.max = String(max);
  input.step = "0.05";
  input.value = String(value);
  const out = document.createElement("output");
  const show = (): void => void (out.textContent = `${Number(input.value).toFixed(2)} ${unit}`);
  input.addEventListener("input", show);
  show();
  label.append(`${name} `, input, " ", out);
  return { label, input };
}

/** A touch joystick: a pad with a knob that follows the pointer while it is down. */
function joystick() {
  const el = document.createElement("div");
  el.className = "joystick";
  el.setAttribute("role", "application");
  el.setAttribute("aria-label", "joystick: drag to drive");
  const knob = document.createElement("div");
  knob.className = "knob";
  el.append(knob);
  let active: number | null = null;
  let dx = 0;
  let dy = 0;
  const place = (): void => {
    knob.style.transform = `translate(${dx * 40}px, ${dy * 40}px)`;
  };
  const reset = (): void => {
    active = null;
    dx = dy = 0;
    place();
  };
  el.addEventListener("pointerdown", (ev) => {
    active = ev.pointerId;
    el.setPointerCapture(ev.pointerId);
    move(ev);
  });
  const move = (ev: PointerEvent): void => {
    if (ev.pointerId !== active) return;
    const r = el.getBoundingClientRect();
    const rad = r.width / 2;
    dx = (ev.clientX - r.left - rad) / rad;
    dy = (ev.clientY - r.top - rad) / rad;
    const len = Math.hypot(dx, dy);
    if (len > 1) {
      dx /= len;
      dy /= len;
    }
    place();
  };
  el.addEventListener("pointermove", move);
  el.addEventListener("pointerup", reset);
  el.addEventListener("pointercancel", reset);
  el.addEventListener("lostpointercapture", reset);
  return { el, reset, command: (): Command => (active === null ? zero : joystickCommand(dx, dy)) };
}
