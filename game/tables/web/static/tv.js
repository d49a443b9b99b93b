// The table screen, laid out for a TV across the room: the top card, whose turn and the
// direction in large type, every seat's count and score, the story of the last events
// (presses among them, never a headline that goes stale), a banner with the round's winner.
// Announcements aloud (speechSynthesis) are off until someone taps the button.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const STORY = 7;
  let speaking = false;
  let lastTurn = null;
  const actedSinceView = new Set();  // seats that acted since the last view (the turn came back?)

  function say(text) {
    if (!speaking || !text || !window.speechSynthesis) return;
    window.speechSynthesis.speak(new SpeechSynthesisUtterance(text));
  }

  function toggleSpeech() {
    speaking = !speaking;
    const button = $("speak");
    button.setAttribute("aria-pressed", String(speaking));
    button.textContent = speaking ? "Announce aloud: on" : "Announce aloud: off";
    if (!speaking && window.speechSynthesis) window.speechSynthesis.cancel();
    say(speaking ? "Announcements on." : "");
  }

  function renderStory(feed) {
    const recent = feed.slice(-STORY).reverse();
    $("feed").replaceChildren(...recent.map((e, i) => {
      const cls = (e.type === "hit" ? "hit" : "") + (i === 0 ? " latest" : "");
      return Uno.el("li", {class: cls.trim()}, e.text);
    }));
  }

  function renderStatus(view) {
    const colour = Uno.el("div", {class: "tv-colour"});
    colour.append(Uno.el("span", {class: "swatch" + (view.color ? " c-" + view.color : "")}),
      Uno.el("span", {}, "Colour: " + view.color_name));
    $("status").replaceChildren(
      Uno.el("div", {id: "turn", class: "tv-turn" + (view.turn_name === null ? " done" : "")},
        view.turn_name !== null ? Uno.turnText(view)
          : view.result && view.result.game_over ? "Game over" : "Round " + view.round + " over"),
      Uno.card(view.top, true),
      colour,
      Uno.el("div", {class: "tv-direction"}, "Play goes " + view.direction_text));
    $("round").textContent = "Round " + view.round + " · first to " + view.target;
  }

  function renderBanner(result) {
    const banner = $("banner");
    banner.classList.toggle("hidden", !result);
    banner.classList.toggle("game-over", Boolean(result && result.game_over));
    if (!result) { banner.replaceChildren(); return; }
    banner.replaceChildren(Uno.el("div", {class: "banner-title"}, "★ " + result.text + " ★"),
      Uno.el("div", {class: "banner-detail"}, result.detail));
  }

  function announce(data, view) {
    for (const e of data.events) {
      if (e.event.type === "hit" && e.text) say(e.text);
      if (Number.isInteger(e.event.player)) actedSinceView.add(e.event.player);
    }
    if (!view) return;
    // a turn is announced when it changes hands, or comes back after someone else played
    const turn = view.turn_name !== null ? "turn:" + view.turn_name : "result:" + view.round;
    const others = [...actedSinceView].some((seat) => view.names[seat] !== view.turn_name);
    actedSinceView.clear();
    if (turn === lastTurn && !others) return;
    lastTurn = turn;
    say(view.turn_name !== null ? view.turn_name + "'s turn." : view.result && view.result.text);
  }

  function render(data, feed) {
    renderStory(feed);
    TablePage.showTrouble(data);
    const view = data.view;
    if (view) {
      renderStatus(view);
      Uno.renderSeats($("seats"), view);
      renderBanner(view.result);
    }
    announce(data, view);
  }

  $("speak").addEventListener("click", toggleSpeech);
  Uno.start({update: render, restore: renderStory});
})();
