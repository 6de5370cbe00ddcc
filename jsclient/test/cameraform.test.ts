import { describe, expect, it } from "vitest";
import { cameraSource } from "../src/widgets/cameraform.js";

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
