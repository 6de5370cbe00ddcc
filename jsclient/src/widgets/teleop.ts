// The teleop widget: drives the robot's input stream over W3 (one socket, binary protobuf
// commands) from a gamepad (deadman held), the keyboard (WASD/arrows, space stops) or a touch
// joystick, scaled by speed sliders. CommandSender paces what goes out; every way the
// operator can lose touch (tab hidden, focus lost, gamepad gone, socket dropped) sends a zero
// and stops. Beside it: the robot's camera.
import type { LiveSocket } from "../net/socket.js";
import { holderOf } from "../teleop/controls.js";
import {
  driveKeys,
  encodeCommand,
  gamepadCommand,
  inputKind,
  joystickCommand,
  keysCommand,
  zero,
  type Command,
  type Limits,
} from "../teleop/mapping.js";
import { CommandSender } from "../teleop/sender.js";
import { mountCamera } from "./camera.js";
import { StatusLine } from "./status.js";
import { listStreams, openLive, refOf, streamOf } from "./stream.js";

export function mountTeleop(el: HTMLElement): void {
  const ref = streamOf(el);
  const kind = inputKind(ref.type);
  if (!kind) throw new Error(`cannot drive a ${ref.type}`);
  const deadman = Number(el.dataset.deadmanButton ?? 4); // LB on a standard-mapping pad

  const status = new StatusLine(el);
  const panel = document.createElement("div");
  panel.className = "teleop";
  const help = document.createElement("p");
  help.className = "muted";
  help.textContent = `Hold LB (button ${deadman}) and use the left stick, or click here and use WASD or the arrows (space stops), or drag the joystick.`;
  const linear = slider("Top speed", "m/s", kind === "twist" ? 1.5 : 2, 0.1, 3);
  const angular = slider(kind === "twist" ? "Top turn rate" : "Top steering", kind === "twist" ? "rad/s" : "rad", kind === "twist" ? 1.5 : 0.5, 0.05, 3);
  const stick = joystick();
  const pad = document.createElement("p");
  pad.className = "gamepad-state";
  pad.textContent = "no gamepad";
  const camera = document.createElement("div");
  camera.className = "teleop-camera";
  panel.append(help, linear.label, angular.label, stick.el, pad);
  el.append(panel, camera, status.el);
  el.tabIndex = 0;

  const limits = (): Limits => ({ linear: Number(linear.input.value), angular: Number(angular.input.value) });
  let socket: LiveSocket | null = null;
  let sentCount = 0;
  const sender = new CommandSender((c: Command) => {
    const ok = socket?.send(encodeCommand(kind, c, limits())) ?? false;
    if (ok) el.dataset.sent = String(++sentCount);
    el.dataset.command = `${c.forward.toFixed(2)},${c.turn.toFixed(2)}`;
    status.figures(
      c.forward || c.turn ? `driving: forward ${c.forward.toFixed(2)}, turn ${c.turn.toFixed(2)} (of the top speeds)` : "stopped",
    );
    return ok;
  });

  const keys = new Set<string>();
  let paused = false;
  const stopAll = (why: string): void => {
    keys.clear();
    stick.reset();
    sender.release();
    el.dataset.stopped = why;
  };

  socket = openLive(ref, "input", {
    onStatus: (s) => {
      status.socketStatus(s);
      if (s.state === "closed") stopAll("socket");
    },
    onClose: async (c) => {
      if (c.opened) return;
      // A refused upgrade: if someone holds this stream, say who.
      const h = await holderOf(ref.robotId, ref.component, ref.stream, Number(ref.source)).catch(() => null);
      if (!h) {
        delete el.dataset.heldBy;
        return;
      }
      el.dataset.heldBy = h.owner;
      return `controlled by another operator (${h.owner})`;
    },
  });

  el.addEventListener("keydown", (ev) => {
    if (ev.code === "Space") {
      ev.preventDefault();
      stopAll("space");
      return;
    }
    if (driveKeys.has(ev.code)) {
      ev.preventDefault();
      keys.add(ev.code);
    }
  });
  el.addEventListener("keyup", (ev) => keys.delete(ev.code));
  document.addEventListener("visibilitychange", () => {
    paused = document.hidden;
    if (paused) stopAll("hidden");
  });
  window.addEventListener("blur", () => {
    paused = true;
    stopAll("blur");
  });
  window.addEventListener("focus", () => (paused = false));
  window.addEventListener("gamepaddisconnected", () => stopAll("gamepad"));

  const loop = (): void => {
    let c: Command = zero;
    const gp = firstGamepad();
    pad.textContent = gp ? `${gp.id}: ${gp.buttons[deadman]?.pressed ? "deadman held" : "hold the deadman to drive"}` : "no gamepad";
    if (!paused && socket?.state === "live") {
      const fromPad = gp ? gamepadCommand(gp.axes, gp.buttons, deadman) : zero;
      const fromStick = stick.command();
      c = fromPad.forward || fromPad.turn ? fromPad : fromStick.forward || fromStick.turn ? fromStick : keysCommand(keys);
    }
    sender.set(c);
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);

  // The robot's camera beside the controls, when it has one.
  void listStreams(ref.robotId)
    .then((ds) => {
      const cam = ds.find((d) => d.direction === "output" && /\.(CompressedImage|Image)$/.test(d.streamType));
      if (!cam) return;
      const r = refOf(ref.robotId, cam);
      Object.assign(camera.dataset, { robotId: r.robotId, component: r.component, stream: r.stream, source: r.source, type: r.type });
      mountCamera(camera);
    })
    .catch(() => undefined);
}

function firstGamepad(): Gamepad | null {
  const pads = navigator.getGamepads?.() ?? [];
  for (const p of pads) if (p && p.connected) return p;
  return null;
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
  return { el, reset, command: (): Command => (active === null ? zero : joystickCommand(dx, dy)) };
}
