// The host page's table (and the jam dialog the TV screen shares): public information only.
"use strict";
const TablePage = (() => {
  const $ = (id) => document.getElementById(id);

  let lastHit = null;

  function showStuck(data, extra) {
    const box = $("jam");
    box.classList.remove("hidden");
    const lines = [Uno.el("strong", {}, "⚠ The launcher failed: " + data.stuck),
      Uno.el("p", {}, "Check the launcher and its cable; the game waits at this press.")];
    box.replaceChildren(...lines, ...(extra ? extra(null) : []));
  }

  function showJam(jam, extra) {
    const box = $("jam");
    box.classList.toggle("hidden", !jam);
    if (!jam) { box.replaceChildren(); return; }
    const lines = [Uno.el("strong", {}, "⚠ The launcher stopped: " + jam.message),
      Uno.el("p", {}, jam.hint || "Clear the launcher.")];
    if (jam.counted) lines.push(Uno.el("p", {}, jam.counted + " card(s) came out before it stopped: they are " + jam.name + "'s."));
    box.replaceChildren(...lines, ...(extra ? extra(jam) : []));
  }

  // A jam, a launcher failure or a game that could not start: shown above everything.
  function showTrouble(data, extra) {
    if (data.stuck && !data.jam) showStuck(data, extra); else showJam(data.jam, extra);
    const error = $("error");
    error.textContent = data.failure || "";
    error.classList.toggle("hidden", !data.failure);
  }

  function render(data, feed, extra) {
    Uno.renderFeed($("feed"), feed, 14);
    const press = Uno.lastPress(feed);
    const node = $("press");
    node.textContent = press ? press.text : "";
    if (press && press.version !== lastHit) {  // replay the flying-cards animation
      lastHit = press.version;
      node.classList.remove("fly");
      void node.offsetWidth;
      node.classList.add("fly");
    }
    showTrouble(data, extra);
    if (data.view) {
      Uno.renderStatus($("status"), data.view);
      Uno.renderSeats($("seats"), data.view);
    }
  }
  return {render, showJam, showTrouble};
})();
