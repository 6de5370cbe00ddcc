import { describe, expect, it } from "vitest";
import { cameraOpening, cameraSource } from "../src/widgets/cameraform.js";

describe("camera addresses typed into the panel", () => {
  it.each<[string, string]>([
    ["rtsp://192.168.1.20:554/stream1", "5"],
    ["RTSPS://cam.local/live", "5"],
    ["http://192.168.1.20/onvif/device_service", "4"],
    ["https://cam.local/onvif/device_service", "4"],
  ])("%s is source %s", (address, source) => {
    expect(cameraSource(address)).toEqual({ source });
  });

  it.each(["ftp://cam/x", "file:///etc/passwd", "cam.local/stream", ""])("%s is refused in words", (address) => {
    const r = cameraSource(address);
    expect("error" in r && r.error.length > 10).toBe(true);
  });
});

/** The credentials a camera subprotocol carries. */
function credentialsOf(protocol: string): unknown {
  expect(protocol).toMatch(/^fleetgate\.camera\.[A-Za-z0-9_-]+$/); // a token: base64url without padding
  const b64 = protocol.slice("fleetgate.camera.".length).replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
}

describe("the credentials of a camera typed into the panel", () => {
  it("travel in the subprotocol, never in the socket's query", () => {
    const o = cameraOpening("rtsp://192.168.1.20/stream1", "viewer", "pä55:w/rd?&=");
    if ("error" in o) throw new Error(o.error);
    expect(o.params).toEqual({ url: "rtsp://192.168.1.20/stream1" });
    expect(o.protocols).toHaveLength(1);
    expect(credentialsOf(o.protocols[0]!)).toEqual({ username: "viewer", password: "pä55:w/rd?&=" });
  });

  it("typed in the address's user part, are taken out of it", () => {
    const o = cameraOpening("rtsp://viewer:s3cr%40t@192.168.1.20:554/stream1", "", "");
    if ("error" in o) throw new Error(o.error);
    expect(JSON.stringify(o.params)).not.toMatch(/s3cr|viewer/);
    expect(o.params.url).toBe("rtsp://192.168.1.20:554/stream1");
    expect(credentialsOf(o.protocols[0]!)).toEqual({ username: "viewer", password: "s3cr@t" });
    expect(cameraOpening("rtsp://a:b@192.168.1.20/x", "c", "d")).toHaveProperty("error");
  });

  it("are not offered when there are none", () => {
    expect(cameraOpening("http://192.168.1.20/onvif/device_service", "", "")).toEqual({
      source: "4",
      params: { url: "http://192.168.1.20/onvif/device_service" },
      protocols: [],
    });
  });
});
