// The form that opens a camera by its address on the robot page (local gateway, Developer
// and above): an RTSP URL, or an ONVIF device's http(s) URL, with optional credentials. The
// camera is watched through W3 with source 5 (RTSP) or 4 (ONVIF) and url, username and
// password in the socket's query: the agent connects to the camera for this socket only.
// The credentials stay in this page's memory; they are never put in the page or stored.
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
    const kind = cameraSource(address);
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
    const extra: Record<string, string> = { url: address };
    const username = String(data.get("username") ?? "");
    const password = String(data.get("password") ?? "");
    if (username) extra.username = username;
    if (password) extra.password = password;
    stop = mountCamera(cam, extra);
    closeButton.hidden = false;
    el.dataset.state = "open";
  });
}
