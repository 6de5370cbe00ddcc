import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { StringSchema } from "../gen/platform/messages/std_msgs_pb.js";
import { decodePayload } from "../src/decode/frame.js";
import { goalDocument, goalStreams, navStatusOf } from "../src/widgets/goals.js";

const d = (componentName: string, streamName: string, streamType: string, direction: string) => ({ componentName, streamName, streamType, direction, streamSourceType: 1 });
const pose = "Platform.Messages.geometry_msgs.PoseStamped";
const str = "Platform.Messages.std_msgs.String";

describe("goals", () => {
  it("finds the simulator's goal, waypoint and status streams", () => {
    const s = goalStreams("r1", [
      d("base", "pose", pose, "output"),
      d("base", "cmd_vel", "Platform.Messages.geometry_msgs.Twist", "input"),
      d("nav", "status", str, "output"),
      d("nav", "waypoint", pose, "input"),
      d("nav", "goal", pose, "input"),
    ]);
    expect([s.goal?.component, s.goal?.stream, s.waypoint?.stream, s.status?.stream]).toEqual(["nav", "goal", "waypoint", "status"]);
  });

  it("takes a ROS robot's goal topic alone, and a robot with no PoseStamped input takes no goals", () => {
    const ros = goalStreams("r1", [d("move_base_simple", "goal", pose, "input"), d("base", "pose", pose, "output")]);
    expect([ros.goal?.component, ros.waypoint, ros.status]).toEqual(["move_base_simple", undefined, undefined]);
    expect(goalStreams("r1", [d("base", "pose", pose, "output")]).goal).toBeUndefined();
  });

  it("reads nav/status from its String payload", () => {
    const doc = { state: "driving", text: "driving to goal, 4.2 m left", remaining: 4.2, goal: { x: 3, y: 1 } };
    const p = decodePayload(str, toBinary(StringSchema, create(StringSchema, { data: JSON.stringify(doc) })));
    expect(p && navStatusOf(p)).toEqual({ ...doc });
    const junk = decodePayload(str, toBinary(StringSchema, create(StringSchema, { data: "not json" })));
    expect(junk && navStatusOf(junk)).toBeNull();
  });

  it("sends a PoseStamped in the map frame", () => {
    expect(goalDocument(1.5, -2)).toEqual({ header: { frameId: "map" }, pose: { position: { x: 1.5, y: -2, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } } });
  });
});
