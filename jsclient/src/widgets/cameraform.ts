// The form that opens a camera by its address on the robot page (local gateway, Developer
// and above): an RTSP URL, or an ONVIF device's http(s) URL, with optional credentials. The
// camera is watched through W3 with source 5 (RTSP) or 4 (ONVIF) and url in the socket's
// query, the credentials in its subprotocol (cameraProtocol): never in a URL, which a browser
// prints in its console when the upgrade is refused. The agent connects to the camera for
// this socket only. The credentials stay in this page's memory; they are never put in the
// page or stored.
import { cameraProtocol } from "../net/token.js";
import { mountCamera } from "./camera.js";

const imageType = "Platform.Messages.sensor_msgs.CompressedImage";

/** The W3 source type of a camera address, or an error in words. */
export function cameraSource(address: string): { source: string } | { error: string } {
  let u: URL;
  try {
    u = new URL(address);
  } catch {
    return { error: "not a URL: give rtsp://host/path or an ONVIF http(s)://host/onvif/device_service" };
  }
  switch (u.protocol) {
    case "rtsp:":
    case "rtsps:":
      return { source: "5" };
    case "http:":
    case "https:":
      return { source: "4" };
    default:
      return { error: `${u.protocol} is not a camera address: rtsp://, rtsps:// or http(s):// (ONVIF)` };
  }
}

/** How the form opens a camera: the W3 query parameters and the subprotocols that carry its credentials. */
export interface CameraOpening {
  source: string;
  params: Record<string, string>;
  protocols: string[];
}

/**
 * The W3 opening of a camera typed into the form: credentials typed in the URL's user part
 * are taken out of it and carried like the fields' (not both), so that no URL holds them.
 */
export function cameraOpening(address: string, username: string, password: string): CameraOpening | { error: string } {
  const kind = cameraSource(address);
  if ("error" in kind) return kind;
  const u = new URL(address);
  if (u.username || u.password) {
    if (username || password) return { error: "give the credentials in the address or in the fields, not both" };
    username = decodeURIComponent(u.username);
    password = decodeURIComponent(u.password);
    u.username = "";
    u.password = "";
    address = u.href;
  }
  const protocols = username || password ? [cameraProtocol(username, password)] : [];
  return { source: kind.source, params: { url: address }, protocols };
}

export function mountCameraForm(el: HTMLElement): void {
  const robotId = el.dataset.robotId ?? "";
  const form = document.createElement("form");
  form.className = "camera-form";
  form.innerHTML = `
    <label>Camera address <input name="url" type="text" required spellcheck="false" autocomplete="off"
      placeholder="rtsp://192.168.1.20:554/stream1 or http://192.168.1.20/onvif/device_service"></label>
    <label>Username <input name="username" type="text" autocomplete="off"></label>
    <label>Password <input name="password" type="password" autocomplete="new-password"></label>
    <button type="submit">Open</button> <button type="button" data-close hidden>Close</button>
    <p class="error" data-camera-error aria-live="polite" hidden></p>`;
  const view = document.createElement("div");
  el.append(form, view);
  const error = form.querySelector<HTMLElement>("[data-camera-error]")!;
  const closeButton = form.querySelector<HTMLButtonElement>("[data-close]")!;
  let stop: (() => void) | null = null;
  const close = (): void => {
    stop?.();
    stop = null;
    view.textContent = "";
    closeButton.hidden = true;
    el.dataset.state = "idle";
  };
  closeButton.addEventListener("click", close);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    const address = String(data.get("url") ?? "").trim();
    const kind = cameraOpening(address, String(data.get("username") ?? ""), String(data.get("password") ?? ""));
    if ("error" in kind) {
      error.textContent = kind.error;
      error.hidden = false;
      return;
    }
    error.textContent = "";
    error.hidden = true;
    close();
    const cam = document.createElement("div");
    cam.className = "widget";
    Object.assign(cam.dataset, { widget: "camera", mounted: "1", mode: "live", robotId, component: "", stream: "camera-by-address", source: kind.source, type: imageType });
    view.append(cam);
    stop = mountCamera(cam, kind.params, kind.protocols);
    closeButton.hidden = false;
    el.dataset.state = "open";
  });
}
