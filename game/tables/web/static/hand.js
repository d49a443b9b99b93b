// The hand page: one seat's own cards and its moves as buttons (card text on every button).
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  let busy = false;
  let shownHand = null;  // the card codes of the hand drawn last (null: nothing drawn yet)

  // The cards that arrived since the hand was last drawn (a multiset difference).
  function arrived(hand) {
    const before = {};
    for (const code of shownHand || []) before[code] = (before[code] || 0) + 1;
    return hand.map((c) => {
      if (shownHand === null) return false;
      if (!before[c.code]) return true;
      before[c.code] -= 1;
      return false;
    });
  }

  function renderNews(view) {
    const news = $("news");
    const lines = view.done_to_you || [];
    news.classList.toggle("hidden", lines.length === 0);
    news.replaceChildren(...lines.map((text) => Uno.el("p", {}, text)));
  }

  function showError(text) {
    const box = $("error");
    box.textContent = text;
    box.classList.toggle("hidden", !text);
  }

  function render(data, feed) {
    Uno.renderFeed($("feed"), feed, 8);
    if (data.failure) { showError(data.failure); return; }
    const view = data.view;
    if (!view) return;  // the launcher is busy: events still arrive
    busy = false;
    $("title").textContent = view.you + " — your hand";
    document.title = "UNO Attack — " + view.you;
    Uno.renderStatus($("status"), view);
    Uno.renderSeats($("seats"), view);
    $("situation").textContent = data.jam ? "The launcher is jammed: wait for the host." : view.situation;
    renderNews(view);
    $("situation").classList.toggle("won", view.situation === "You win!");
    const fresh = arrived(view.hand);
    $("hand").replaceChildren(...view.hand.map((c, i) => {
      const node = Uno.card(c);
      if (c.playable) { node.classList.add("playable"); node.textContent = "✓ " + c.text; }
      if (fresh[i]) { node.classList.add("new"); node.title = "new card"; }
      return node;
    }));
    shownHand = view.hand.map((c) => c.code);
    $("uno-toggle").classList.toggle("hidden", !view.uno_with_play);
    if (!view.uno_with_play) $("uno-with-play").checked = false;
    $("moves").replaceChildren(...view.moves.map((m) => button(m, view)));
  }

  function button(move, view) {
    const cls = (move.color ? "c-" + move.color : "") + (move.kind === "uno" ? " uno" : "") +
      (move.kind === "catch" ? " catch" : "");
    const node = Uno.el("button", {class: cls, "data-move": move.move}, move.label);
    node.addEventListener("click", () => {
      if (busy) return;
      busy = true;
      showError("");
      const moves = [move.move];
      if (view.uno_with_play && $("uno-with-play").checked && move.kind === "play") moves.push("uno");
      Uno.send({type: "move", moves, version: Uno.version});
    });
    return node;
  }

  Uno.start({
    update: render,
    error: (text) => { busy = false; showError(text); },
    restore: (feed) => Uno.renderFeed($("feed"), feed, 8),
  });
})();
