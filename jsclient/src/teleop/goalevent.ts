// The map tells the teleop widget when a goal of its robot is under way (widgets/goals.ts):
// while it is, the teleop widget keeps the lease alive with zeros.
export const goalEvent = "fleetgate:goal";

export interface GoalEventDetail {
  robotId: string;
  active: boolean;
}
