// The live calibration page: the server pushes a snapshot (Server-Sent Events) each time the
// session file grows; the histogram is an SVG the server draws (no chart library).
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const el = Uno.el;
  const pct = (p) => (p === null || p === undefined) ? "–" : (100 * p).toFixed(1) + " %";

  function render(data) {
    $("error").textContent = data.state === "error" ? data.message : "";
    $("error").classList.toggle("hidden", data.state !== "error");
    document.body.dataset.presses = String(data.presses);
    document.body.dataset.state = data.state;
    $("count").textContent = data.state === "waiting" ? data.message
      : data.presses + (data.planned ? " / " + data.planned : "") + " presses" +
        (data.last !== null && data.last !== undefined ? " · last: " + data.last + " card" + (data.last === 1 ? "" : "s") : "");
    const status = [el("span", {}, (data.file || "").split("/").pop())];
    if (data.launcher) status.push(el("span", {}, "Launcher: " + data.launcher));
    if (data.mean) status.push(el("span", {id: "mean"}, "Mean " + data.mean.estimate.toFixed(2) + " cards/press" +
      (data.mean.low !== null ? " [" + data.mean.low.toFixed(2) + ", " + data.mean.high.toFixed(2) + "]" : "")));
    status.push(el("span", {}, data.state === "done" ? "Recording finished" : data.state === "recording" ? "Recording…" : ""));
    $("status").replaceChildren(...status);
    if (data.svg) {
      const svg = new DOMParser().parseFromString(data.svg, "image/svg+xml").documentElement;
      $("histogram").replaceChildren(document.importNode(svg, true));
    }
    const rows = [el("tr")];
    rows[0].append(el("th", {}, "cards"), el("th", {}, "presses"), el("th", {}, "estimate"), el("th", {}, "95 % simultaneous"));
    for (const r of data.distribution || []) {
      const row = el("tr");
      row.append(el("td", {}, r.count), el("td", {}, r.observed), el("td", {}, pct(r.p)), el("td", {}, pct(r.low) + " – " + pct(r.high)));
      rows.push(row);
    }
    if (data.tail) {
      const row = el("tr");
      row.append(el("td", {}, "≥ " + data.tail.count_at_least), el("td", {}, "0"), el("td", {}, "–"), el("td", {}, "≤ " + pct(data.tail.high)));
      rows.push(row);
    }
    $("table").replaceChildren(...rows);
    $("profile").classList.toggle("hidden", !data.profile);
    if (data.profile) {
      $("profile-summary").textContent = "Kind: " + data.profile.kind + " (structure " + data.profile.structure + "; presses " +
        (data.profile.independent ? "look independent" : "do not look independent") + "). Save it with: uno-attack calibrate fit " + data.file.split("/").pop() + " --out PROFILE.toml";
      $("profile-toml").textContent = data.profile.toml;
    }
  }

  // Recording from a phone: /calibration/record/TOKEN shows buttons that POST each tap.
  const recordAt = location.pathname.startsWith("/calibration/record/") ? location.pathname + "/action" : null;

  function showTally(answer) {
    const tally = answer.tally;
    const message = $("record-message");
    message.textContent = answer.message || "";
    message.classList.toggle("refused", answer.ok === false);
    document.body.dataset.tally = answer.ok === false ? "refused" : "ok";
    if (!tally) {
      $("record-prompt").textContent = "Load the hopper, then tap Loaded.";
      $("reloaded").classList.remove("hidden");
      return;
    }
    $("reloaded").classList.toggle("hidden", !tally.awaiting_reload);
    $("digits").classList.toggle("hidden", tally.awaiting_reload);
    $("more").classList.toggle("hidden", tally.awaiting_reload);
    $("record-prompt").textContent = tally.awaiting_reload
      ? "Load the hopper so it holds " + tally.cards_loaded + " cards, close the cover, then tap Loaded."
      : "Press " + tally.next + " (" + tally.loaded + " cards loaded): press the launcher once, then tap how many cards came out.";
  }

  async function act(body) {
    const response = await fetch(recordAt, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    showTally(response.ok ? await response.json() : {ok: false, message: await response.text()});
  }

  if (recordAt) {
    $("record").classList.remove("hidden");
    for (let k = 0; k <= 9; k++) {
      const button = el("button", {type: "button", "data-count": String(k)}, String(k));
      button.addEventListener("click", () => act({action: "press", count: k}));
      $("digits").append(button);
    }
    $("more").addEventListener("submit", (event) => {
      event.preventDefault();
      const typed = $("more-count").value.trim();
      act({action: "press", count: /^\d+$/.test(typed) ? Number(typed) : typed});
      $("more-count").value = "";
    });
    $("undo").addEventListener("click", () => act({action: "undo"}));
    $("reloaded").addEventListener("click", () => act({action: "reloaded"}));
    act({action: "state"});
  }

  const source = new EventSource("/calibration/events");
  source.onopen = () => { $("connection").textContent = "connected"; };
  source.onerror = () => { $("connection").textContent = "reconnecting…"; };
  source.onmessage = (message) => render(JSON.parse(message.data));
})();
