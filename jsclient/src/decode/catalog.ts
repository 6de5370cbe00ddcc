// The payload types the widgets understand, by the dataType a MessageStream envelope names.
// Wire types come only from the protobuf-es code generated from proto/ (jsclient/gen).
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { AckermannDriveStampedSchema } from "../../gen/platform/messages/ackermann_msgs_pb.js";
import { CompressedVideoSchema } from "../../gen/platform/messages/foxglove_msgs_pb.js";
import { PoseSchema, PoseStampedSchema, TwistSchema } from "../../gen/platform/messages/geometry_msgs_pb.js";
import { OccupancyGridSchema, OdometrySchema } from "../../gen/platform/messages/nav_msgs_pb.js";
import {
  BatteryStateSchema,
  CompressedImageSchema,
  ImageSchema,
  LaserScanSchema,
  PointCloud2Schema,
} from "../../gen/platform/messages/sensor_msgs_pb.js";
import { StringSchema } from "../../gen/platform/messages/std_msgs_pb.js";

export const catalog = {
  "Platform.Messages.sensor_msgs.CompressedImage": CompressedImageSchema,
  "Platform.Messages.sensor_msgs.Image": ImageSchema,
  "Platform.Messages.foxglove_msgs.CompressedVideo": CompressedVideoSchema,
  "Platform.Messages.sensor_msgs.LaserScan": LaserScanSchema,
  "Platform.Messages.sensor_msgs.PointCloud2": PointCloud2Schema,
  "Platform.Messages.sensor_msgs.BatteryState": BatteryStateSchema,
  "Platform.Messages.nav_msgs.OccupancyGrid": OccupancyGridSchema,
  "Platform.Messages.nav_msgs.Odometry": OdometrySchema,
  "Platform.Messages.geometry_msgs.PoseStamped": PoseStampedSchema,
  "Platform.Messages.geometry_msgs.Pose": PoseSchema,
  "Platform.Messages.geometry_msgs.Twist": TwistSchema,
  "Platform.Messages.ackermann_msgs.AckermannDriveStamped": AckermannDriveStampedSchema,
  // nav/status, a goal's progress as a JSON document (docs/api.md, "Goals").
  "Platform.Messages.std_msgs.String": StringSchema,
} as const satisfies Record<string, DescMessage>;

export type DataType = keyof typeof catalog;

/** A decoded payload: its type name and the typed message. */
export type Payload = {
  [K in DataType]: { dataType: K; message: MessageShape<(typeof catalog)[K]> };
}[DataType];

export function isKnownType(t: string): t is DataType {
  return Object.hasOwn(catalog, t);
}
