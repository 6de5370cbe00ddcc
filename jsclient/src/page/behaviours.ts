// The panel's small page behaviours: refresh a region in place, copy a secret, check JSON
// before an upload, confirm a destructive form. Everything hangs on data-* attributes.

// data-refresh="URL" data-every="ms": replace the element's content with the server's
// fragment, without reloading the page. Pauses while the tab is hidden.
export function startRefresh(root: ParentNode = document): void {
  for (const el of root.querySelectorAll<HTMLElement>("[data-refresh]")) {
    const every = Number(el.dataset.every || 2000);
    const url = el.dataset.refresh!;
    const tick = async (): Promise<void> => {
      if (!document.hidden) {
        try {
          const r = await fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } });
          if (r.ok) {
            el.innerHTML = await r.text();
            el.dataset.loaded = String(Date.now());
          }
          el.dataset.state = r.ok ? "live" : "error";
        } catch {
          el.dataset.state = "offline"; // the content stays, and what reads it ages it
        }
      }
      setTimeout(tick, every);
    };
    setTimeout(tick, every);
  }
}

// data-copy="#id": copy that element's text.
export function startCopy(root: ParentNode = document): void {
  for (const b of root.querySelectorAll<HTMLElement>("[data-copy]")) {
    b.addEventListener("click", async () => {
      const src = document.querySelector(b.dataset.copy!);
      if (!src) return;
      await navigator.clipboard.writeText((src.textContent ?? "").trim());
      b.textContent = "Copied";
    });
  }
}

// form[data-json-field=name]: refuse to send when that field is not JSON.
export function startJSONCheck(root: ParentNode = document): void {
  for (const f of root.querySelectorAll<HTMLFormElement>("form[data-json-field]")) {
    f.addEventListener("submit", (ev) => {
      const field = f.elements.namedItem(f.dataset.jsonField!) as HTMLTextAreaElement | null;
      const out = f.querySelector<HTMLElement>("[data-json-error]");
      try {
        JSON.parse(field?.value ?? "");
        if (out) out.textContent = "";
      } catch (e) {
        ev.preventDefault();
        if (out) out.textContent = "Not valid JSON: " + (e as Error).message;
      }
    });
  }
}

// form[data-confirm]: ask first.
export function startConfirm(root: ParentNode = document): void {
  for (const f of root.querySelectorAll<HTMLFormElement>("form[data-confirm]")) {
    f.addEventListener("submit", (ev) => {
      if (!confirm(f.dataset.confirm!)) ev.preventDefault();
    });
  }
}

// time[data-clock]: a clock that ticks each second (the kiosk's), in the display's time zone.
export function startClock(root: ParentNode = document): void {
  for (const el of root.querySelectorAll<HTMLElement>("[data-clock]")) {
    const tick = (): void => {
      const now = new Date();
      el.textContent = now.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
      el.setAttribute("datetime", now.toISOString());
    };
    tick();
    setInterval(tick, 1000);
  }
}
