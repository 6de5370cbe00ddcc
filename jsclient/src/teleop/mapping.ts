// From a person's hands to a command message: gamepad axes, keys or a touch joystick become
// a normalized command (forward and turn in -1..1), which becomes a Twist or an
// AckermannDriveStamped, as the input stream's type asks, scaled by the speed limits.
import { create, toBinary } from "@bufbuild/protobuf";
import { AckermannDriveStampedSchema } from "../../gen/platform/messages/ackermann_msgs_pb.js";
import { TwistSchema } from "../../gen/platform/messages/geometry_msgs_pb.js";

export interface Command {
  /** Forward (+) and backward (-), -1..1. */
  forward: number;
  /** Left (+, counter-clockwise as in ROS) and right (-), -1..1. */
  turn: number;
}

export const zero: Command = { forward: 0, turn: 0 };

export function isZero(c: Command): boolean {
  return c.forward === 0 && c.turn === 0;
}

export type InputKind = "twist" | "ackermann";

export function inputKind(streamType: string): InputKind | null {
  if (streamType.endsWith(".Twist")) return "twist";
  if (streamType.endsWith(".AckermannDriveStamped")) return "ackermann";
  return null;
}

export interface Limits {
  /** m/s at full stick. */
  linear: number;
  /** rad/s (twist) or rad of steering (ackermann) at full stick. */
  angular: number;
}

const clamp = (v: number): number => (Number.isFinite(v) ? Math.max(-1, Math.min(1, v)) : 0);

/** Drops the stick's resting noise and rescales the rest to start at zero. */
export function deadzone(v: number, dz = 0.12): number {
  const a = Math.abs(v);
  if (a <= dz) return 0;
  return Math.sign(v) * Math.min(1, (a - dz) / (1 - dz));
}

/**
 * The standard-mapping gamepad: left stick drives (up is forward, left turns left), and
 * nothing moves unless the deadman button is held.
 */
export function gamepadCommand(axes: readonly number[], buttons: readonly { pressed: boolean }[], deadman: number): Command {
  if (!buttons[deadman]?.pressed) return zero;
  const c = { forward: clamp(-deadzone(axes[1] ?? 0)), turn: clamp(-deadzone(axes[0] ?? 0)) };
  return normalize(c);
}

/** WASD and the arrow keys, by KeyboardEvent.code. */
export function keysCommand(down: ReadonlySet<string>): Command {
  const f = (down.has("KeyW") || down.has("ArrowUp") ? 1 : 0) - (down.has("KeyS") || down.has("ArrowDown") ? 1 : 0);
  const t = (down.has("KeyA") || down.has("ArrowLeft") ? 1 : 0) - (down.has("KeyD") || down.has("ArrowRight") ? 1 : 0);
  return normalize({ forward: f, turn: t });
}

/** The touch joystick: the knob's offset from the centre, in radii (y down on screen). */
export function joystickCommand(dx: number, dy: number): Command {
  const r = Math.hypot(dx, dy);
  const s = r > 1 ? 1 / r : 1;
  return normalize({ forward: clamp(-deadzone(dy * s, 0.08)), turn: clamp(-deadzone(dx * s, 0.08)) });
}

// -0 is not zero to a reader of the wire; make it plain 0.
function normalize(c: Command): Command {
  return { forward: c.forward || 0, turn: c.turn || 0 };
}

/** The binary frame W3 input (format protobuf) takes: the raw command message. */
export function encodeCommand(kind: InputKind, c: Command, l: Limits): Uint8Array {
  if (kind === "twist") {
    return toBinary(
      TwistSchema,
      create(TwistSchema, {
        linear: { x: c.forward * l.linear, y: 0, z: 0 },
        angular: { x: 0, y: 0, z: c.turn * l.angular },
      }),
    );
  }
  return toBinary(
    AckermannDriveStampedSchema,
    create(AckermannDriveStampedSchema, {
      drive: { speed: c.forward * l.linear, steeringAngle: c.turn * l.angular },
    }),
  );
}
