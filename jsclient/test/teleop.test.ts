import { fromBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { AckermannDriveStampedSchema } from "../gen/platform/messages/ackermann_msgs_pb.js";
import { TwistSchema } from "../gen/platform/messages/geometry_msgs_pb.js";
import {
  deadzone,
  encodeCommand,
  gamepadCommand,
  inputKind,
  joystickCommand,
  keysCommand,
  zero,
  type Command,
} from "../src/teleop/mapping.js";
import { firstHoldMs, HeldKeys, repeatHoldMs } from "../src/teleop/keys.js";
import { CommandSender } from "../src/teleop/sender.js";
import { FakeClock } from "./fakes.js";

const btn = (...pressed: number[]) => Array.from({ length: 16 }, (_, i) => ({ pressed: pressed.includes(i) }));

describe("mapping", () => {
  it("picks the message by the input stream's type", () => {
    expect(inputKind("Platform.Messages.geometry_msgs.Twist")).toBe("twist");
    expect(inputKind("Platform.Messages.ackermann_msgs.AckermannDriveStamped")).toBe("ackermann");
    expect(inputKind("Platform.Messages.std_msgs.String")).toBeNull();
  });

  it.each<[string, number[], number[], Command]>([
    ["deadman not held: nothing", [0, -1], [], zero],
    ["stick up with deadman: forward", [0, -1], [4], { forward: 1, turn: 0 }],
    ["stick left: turn left", [-1, 0], [4], { forward: 0, turn: 1 }],
    ["resting noise is zero", [0.05, -0.08], [4], zero],
    ["another button is not the deadman", [0, -1], [0], zero],
  ])("gamepad: %s", (_, axes, pressed, want) => {
    expect(gamepadCommand(axes, btn(...pressed), 4)).toEqual(want);
  });

  it("deadzone rescales the rest of the travel", () => {
    expect(deadzone(0.12)).toBe(0);
    expect(deadzone(1)).toBe(1);
    expect(deadzone(-1)).toBe(-1);
    expect(deadzone(0.56)).toBeCloseTo(0.5);
  });

  it.each<[string, string[], Command]>([
    ["W", ["KeyW"], { forward: 1, turn: 0 }],
    ["arrow down + right", ["ArrowDown", "ArrowRight"], { forward: -1, turn: -1 }],
    ["W and S cancel", ["KeyW", "KeyS"], zero],
    ["none", [], zero],
  ])("keys: %s", (_, keys, want) => {
    expect(keysCommand(new Set(keys))).toEqual(want);
  });

  it("joystick: up is forward, clamped to the rim", () => {
    const c = joystickCommand(0, -2);
    expect(c.forward).toBe(1);
    expect(c.turn).toBe(0);
  });

  it("encodes Twist and Ackermann scaled by the limits", () => {
    const t = fromBinary(TwistSchema, encodeCommand("twist", { forward: 0.5, turn: -1 }, { linear: 2, angular: 1.5 }));
    expect(t.linear?.x).toBe(1);
    expect(t.angular?.z).toBe(-1.5);
    const a = fromBinary(
      AckermannDriveStampedSchema,
      encodeCommand("ackermann", { forward: 1, turn: 0.5 }, { linear: 1, angular: 0.5 }),
    );
    expect(a.drive?.speed).toBe(1);
    expect(a.drive?.steeringAngle).toBe(0.25);
  });
});

function sender() {
  const clock = new FakeClock();
  const sent: { t: number; c: Command }[] = [];
  const s = new CommandSender((c) => (sent.push({ t: clock.t, c }), true), 66, 50, clock);
  return { clock, sent, s };
}
const fwd: Command = { forward: 1, turn: 0 };

describe("CommandSender", () => {
  it("sends at once, resends a held command at 15 Hz, and one zero on release", () => {
    const { clock, sent, s } = sender();
    s.set(fwd);
    clock.advance(1000);
    s.release();
    const nonZero = sent.filter((x) => x.c.forward !== 0);
    expect(nonZero[0]!.t).toBe(0);
    expect(nonZero.length).toBeGreaterThanOrEqual(15); // 1000/66 + the first
    for (let i = 1; i < nonZero.length; i++) {
      const gap = nonZero[i]!.t - nonZero[i - 1]!.t;
      expect(gap).toBeLessThanOrEqual(100); // 10 Hz or more: far inside the 500 ms deadman
      expect(gap).toBeGreaterThanOrEqual(50);
    }
    expect(sent.at(-1)).toEqual({ t: 1000, c: zero });
    clock.advance(1000);
    expect(sent.filter((x) => x.c.forward === 0)).toHaveLength(1);
    expect(clock.pending).toBe(0);
  });

  it("never sends more than 20 non-zero commands a second, and the newest wins", () => {
    const { clock, sent, s } = sender();
    for (let t = 0; t < 1000; t += 5) {
      s.set({ forward: 1, turn: t / 1000 });
      clock.advance(5);
    }
    const inSecond = sent.filter((x) => x.t < 1000 && x.c.forward !== 0);
    expect(inSecond.length).toBeLessThanOrEqual(20);
    expect(inSecond.length).toBeGreaterThanOrEqual(19);
    // Each send carries the newest input at its time, not a queued old one.
    for (const x of inSecond) expect(x.c.turn).toBeCloseTo(Math.max(0, x.t - 5) / 1000, 2);
  });

  it("a zero goes out at once even right after a command", () => {
    const { clock, sent, s } = sender();
    s.set(fwd);
    clock.advance(10);
    s.set(zero);
    expect(sent.map((x) => [x.t, x.c.forward])).toEqual([
      [0, 1],
      [10, 0],
    ]);
  });

  it("sends nothing on release when nothing moved", () => {
    const { sent, s } = sender();
    s.release();
    s.set(zero);
    expect(sent).toEqual([]);
  });
});

describe("HeldKeys", () => {
  it("holds a key while the browser keeps repeating it, and lets go when the repeats stop", () => {
    const clock = new FakeClock();
    const k = new HeldKeys(clock.now, 700, 450);
    k.down("ArrowLeft", false);
    clock.advance(650); // the OS's delay before the first repeat
    expect(k.held()).toEqual(new Set(["ArrowLeft"]));
    for (let i = 0; i < 30; i++) {
      k.down("ArrowLeft", true);
      clock.advance(33);
      expect(k.has("ArrowLeft")).toBe(true);
    }
    // The keyup was lost (released over another element): the repeats stop, so does the key,
    // 450 ms after the last repeat (33 ms ago).
    clock.advance(416);
    expect(k.has("ArrowLeft")).toBe(true);
    clock.advance(1);
    expect(k.has("ArrowLeft")).toBe(false);
    expect(keysCommand(k.held())).toEqual(zero);
  });

  it("a key that never repeats drives only for the first bound", () => {
    const clock = new FakeClock();
    const k = new HeldKeys(clock.now);
    k.down("KeyW", false);
    clock.advance(firstHoldMs - 1);
    expect(keysCommand(k.held())).toEqual({ forward: 1, turn: 0 });
    clock.advance(1);
    expect(keysCommand(k.held())).toEqual(zero);
  });

  it("a repeat never starts a key: one that went down elsewhere, or was let go, needs a fresh press", () => {
    const clock = new FakeClock();
    const k = new HeldKeys(clock.now);
    k.down("KeyD", true);
    expect(k.has("KeyD")).toBe(false);
    k.down("KeyD", false);
    expect(k.has("KeyD")).toBe(true);
    k.clear(); // a stop (blur, resize...) while the key is still held down
    k.down("KeyD", true);
    expect(k.has("KeyD")).toBe(false);
    k.down("KeyA", false);
    clock.advance(firstHoldMs); // ran out: the repeats came too late
    k.down("KeyA", true);
    expect(k.has("KeyA")).toBe(false);
  });

  it("keyup and clear let go at once; other keys are not drive keys", () => {
    const clock = new FakeClock();
    const k = new HeldKeys(clock.now);
    k.down("KeyW", false);
    k.down("KeyA", false);
    k.down("KeyQ", false);
    expect(k.held()).toEqual(new Set(["KeyW", "KeyA"]));
    k.up("KeyW");
    expect(k.held()).toEqual(new Set(["KeyA"]));
    k.clear();
    expect(k.held().size).toBe(0);
  });
});
