// The state line under a widget: the socket's state in words plus the widget's own figures
// (frame rate, age). The state is mirrored on the widget element as data-state.
import type { SocketStatus } from "../net/socket.js";

const labels: Record<SocketStatus["state"], string> = {
  connecting: "connecting",
  live: "live",
  stale: "stale",
  closed: "closed",
};

export class StatusLine {
  readonly el: HTMLElement;
  private socket = "";
  private extra = "";

  constructor(private readonly widget: HTMLElement) {
    this.el = document.createElement("p");
    this.el.className = "widget-status";
    this.el.setAttribute("aria-live", "polite");
  }

  socketStatus(s: SocketStatus): void {
    this.widget.dataset.state = s.state;
    if (s.code !== undefined) this.widget.dataset.closeCode = String(s.code);
    this.socket = labels[s.state] + (s.detail ? `: ${s.detail}` : "");
    this.render();
  }

  /** The widget's own figures, after the socket state. */
  figures(text: string): void {
    this.extra = text;
    this.render();
  }

  private render(): void {
    // A widget fed through the agent link says so: an operator sees at a glance that the view
    // crosses the cloud, and its figures (stream age) include that trip.
    // A widget a recording's player feeds has no socket: it says where its frames come from.
    if (this.widget.dataset.via === "recording") {
      this.el.textContent = ["from the recording", this.extra].filter(Boolean).join(" · ");
      return;
    }
    const via = this.widget.dataset.via === "cloud" ? "through the cloud" : "";
    this.el.textContent = [via, this.socket, this.extra].filter(Boolean).join(" · ");
  }
}
