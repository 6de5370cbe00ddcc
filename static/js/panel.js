// The panel's small behaviours until the widget bundle lands: refresh a region in place,
// copy a secret, check JSON before an upload. Everything hangs on data-* attributes.
"use strict";

// data-refresh="URL" data-every="ms": replace the element's content with the server's
// fragment, without reloading the page. Stops while the tab is hidden.
for (const el of document.querySelectorAll("[data-refresh]")) {
  const every = Number(el.dataset.every || 2000);
  const tick = async () => {
    if (!document.hidden) {
      try {
        const r = await fetch(el.dataset.refresh, { credentials: "same-origin", headers: { Accept: "text/html" } });
        if (r.ok) el.innerHTML = await r.text();
        el.dataset.state = r.ok ? "live" : "error";
      } catch {
        el.dataset.state = "offline";
      }
    }
    setTimeout(tick, every);
  };
  setTimeout(tick, every);
}

// data-copy="#id": copy that element's text.
for (const b of document.querySelectorAll("[data-copy]")) {
  b.addEventListener("click", async () => {
    const src = document.querySelector(b.dataset.copy);
    if (!src) return;
    await navigator.clipboard.writeText(src.textContent.trim());
    b.textContent = "Copied";
  });
}

// form[data-json-field=name]: refuse to send when that field is not JSON.
for (const f of document.querySelectorAll("form[data-json-field]")) {
  f.addEventListener("submit", (ev) => {
    const field = f.elements[f.dataset.jsonField];
    const out = f.querySelector("[data-json-error]");
    try {
      JSON.parse(field.value);
      if (out) out.textContent = "";
    } catch (e) {
      ev.preventDefault();
      if (out) out.textContent = "Not valid JSON: " + e.message;
    }
  });
}

// form[data-confirm]: ask first.
for (const f of document.querySelectorAll("form[data-confirm]")) {
  f.addEventListener("submit", (ev) => {
    if (!confirm(f.dataset.confirm)) ev.preventDefault();
  });
}
