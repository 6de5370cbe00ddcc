// Who holds a robot's input stream: GET /panel/api/robots/{id}/controls. A browser sees a
// refused upgrade (409: someone else drives) only as close code 1006, so the teleop widget
// asks here to tell "held by another operator" from a dropped network.

export interface ControlItem {
  componentName: string;
  streamName: string;
  streamSourceType: number;
  owner: string;
  since: string;
}

export async function holderOf(robotId: string, component: string, stream: string, source: number): Promise<ControlItem | null> {
  const r = await fetch(`/panel/api/robots/${encodeURIComponent(robotId)}/controls`, {
    credentials: "same-origin",
    headers: { Accept: "application/json" },
  });
  if (!r.ok) return null;
  const body = (await r.json()) as { controls?: ControlItem[] };
  return (
    body.controls?.find((c) => c.componentName === component && c.streamName === stream && c.streamSourceType === source) ?? null
  );
}
