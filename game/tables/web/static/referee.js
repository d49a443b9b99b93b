// The referee page: tap the card just played (colour, then the card: its text is always on it),
// the target or colour it needs, UNO and catch; PRESS when no card matches; clear jams; score
// a round by tapping the cards left in each hand. The server checks everything.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const el = Uno.el;
  const token = location.pathname.split("/")[2];
  const COLOURS = [["R", "Red"], ["B", "Blue"], ["G", "Green"], ["Y", "Yellow"], ["W", "Wild"]];
  let socket = null, state = null, deck = [], tab = "R", draft = null, retry = 500, dead = false;
  let left = [], scorer = null, lastPhase = null;

  function connect() {
    if (dead) return;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(scheme + "//" + location.host + "/referee/ws?token=" + encodeURIComponent(token));
    $("connection").textContent = "connecting…";
    socket.onopen = () => { retry = 500; $("connection").textContent = "connected"; send({type: "hello"}); };
    socket.onmessage = (m) => {
      const data = JSON.parse(m.data);
      if (data.type === "state") { if (data.deck) deck = data.deck; state = data; render(); }
      else if (data.type === "error") showError(data.message);
    };
    socket.onclose = (e) => {
      if (e.code === 4403) { dead = true; $("connection").textContent = "this link is not valid"; return; }
      $("connection").textContent = "reconnecting…";
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 5000);
    };
  }

  function send(message) {
    if (!socket || socket.readyState !== 1) { showError("not connected: wait a moment"); return; }
    if ((message.type === "entry" || message.type === "score") && state) message.version = state.version;
    socket.send(JSON.stringify(message));
  }

  function showError(text) { $("error").textContent = text || ""; $("error").classList.toggle("hidden", !text); }
  function button(text, attrs, onClick) { const b = el("button", attrs || {}, text); b.addEventListener("click", onClick); return b; }
  function show(id, visible) { $(id).classList.toggle("hidden", !visible); }
  function allowed(op) { return state && state.allowed && state.allowed.includes(op); }
  function cardOf(code) { return deck.find((c) => c.code === code); }

  function render() {
    if (state.failure) showError(state.failure);
    if (state.phase !== lastPhase) {
      draft = null; left = state.players.map(() => []); scorer = null; lastPhase = state.phase;
    }
    if (!draft) tab = state.color || tab;
    renderStatus(); renderSeats(); renderJam(); renderFeed();
    document.body.dataset.busy = String(!!state.busy);
    document.body.dataset.version = String(state.version);
    $("prompt").textContent = state.jam ? "The launcher is jammed: clear it, then answer in the box at the top."
      : state.busy ? "The launcher is pressing…" : (state.prompt || "starting…");
    show("press", allowed("press") && !state.jam);
    show("done", allowed("done") && !state.jam);
    show("actions", (allowed("press") || allowed("done")) && !state.jam);
    renderDraft(); renderPicker(); renderScoring();
  }

  function renderStatus() {
    const parts = [state.top ? Uno.card(state.top, true) : el("span", {class: "card big"}, "no card yet")];
    parts.push(el("span", {}, "Colour: " + state.color_name));
    parts.push(el("span", {}, "Play goes " + (state.direction === 1 ? "clockwise ↻" : "anticlockwise ↺")));
    parts.push(el("span", {}, "Round " + state.round + " · to " + state.target));
    parts.push(el("span", {}, "Launcher: " + state.pile + " cards · " + state.presses + (state.presses === 1 ? " press" : " presses")));
    if (state.phase === "game_over") parts.push(el("strong", {}, "Game over: " + state.players[state.winner] + " wins"));
    $("status").replaceChildren(...parts);
  }

  function renderSeats() {
    $("seats").replaceChildren(...state.players.map((name, i) => {
      const turn = i === state.current && ["playing", "stack", "play_again"].includes(state.phase);
      const item = el("li", {class: turn ? "turn" : "", "data-seat": String(i)});
      const n = state.hands[i];
      item.append(el("strong", {}, name + (turn ? " — to play" : "") + (i === state.dealer ? " (dealer)" : "")), el("br"));
      item.append(el("span", {class: "hand-size"}, n + " card" + (n === 1 ? "" : "s") + " · " + state.scores[i] + " pts"));
      if (n === 1) item.append(el("span", {class: "badges"}, state.exposed === i ? " · UNO not called!" : " · UNO"));
      item.append(el("br"));
      if (n === 1 && allowed("uno") && state.exposed === i) item.append(button("UNO called by " + name, {class: "uno seat-uno", "data-seat": String(i)}, () => send({type: "entry", op: "uno", seat: i})));
      if (allowed("catch") && state.exposed === i) item.append(button("Catch " + name, {class: "catch seat-catch", "data-seat": String(i)}, () => send({type: "entry", op: "catch", seat: i})));
      if (allowed("fix")) item.append(fixer(i, n));
      return item;
    }));
  }

  // a miscount (a card on the floor, two stuck together): "Correct" opens a − / + stepper
  function fixer(seat, held) {
    const box = el("span", {class: "fixer"});
    const open = button("Correct", {"data-fix": String(seat), "aria-label": "correct " + state.players[seat] + "'s count"}, () => {
      let count = held;
      const shown = el("strong", {}, String(count));
      const step = (d) => button(d > 0 ? "+" : "−", {"aria-label": (d > 0 ? "one more" : "one fewer")}, () => { count = Math.max(0, count + d); shown.textContent = String(count); });
      box.replaceChildren(step(-1), shown, step(1), button("Set", {"data-fix-set": String(seat)}, () => send({type: "entry", op: "fix", seat, count})));
    });
    box.append(open);
    return box;
  }

  function renderJam() {
    const jam = state.jam, box = $("jam");
    show("jam", !!jam);
    if (!jam) { box.replaceChildren(); return; }
    const input = el("input", {type: "number", min: "0", max: "200", value: "0", id: "pulled", "aria-label": "cards pulled out by hand"});
    box.replaceChildren(
      el("strong", {}, "⚠ The launcher stopped: " + jam.message),
      el("p", {}, jam.hint || "Open the launcher and remove the stuck cards."),
      el("p", {}, (jam.counted || 0) + " card(s) came out before it stopped; they and the ones pulled out are " + jam.name + "'s."),
      el("label", {for: "pulled"}, "Cards pulled out by hand: "), input,
      button("Cleared: cards pulled out ✓", {id: "jam-done"}, () => send({type: "jam", pulled: Number(input.value)})),
      button("Nothing came out: press again", {id: "jam-again"}, () => send({type: "jam", pulled: null})));
  }

  function renderFeed() {
    $("feed").replaceChildren(...state.log.slice(-16).reverse().map((t) => el("li", {class: t.includes(" presses the launcher ") ? "hit" : ""}, t)));
  }

  // -- a card being entered: colour, target and extra cards asked for one at a time ------------
  function needs(d) {
    const first = state.phase === "start";
    if (d.card.wild && !d.color) return "color";
    if (!first && d.card.target && d.seat === undefined) return "target";
    if (!first && d.card.extra && d.count === undefined) return "count";
    return null;
  }

  function pick(card) {
    draft = {card};
    advance();
  }

  function advance() {
    if (!needs(draft)) {
      const entry = {type: "entry", op: "play", card: draft.card.code, uno: $("uno-with").checked};
      if (draft.color) entry.color = draft.color;
      if (draft.seat !== undefined) entry.seat = draft.seat;
      if (draft.count !== undefined) entry.count = draft.count;
      draft = null; $("uno-with").checked = false; showError("");
      send(entry);
    }
    render();
  }

  function renderDraft() {
    show("draft", !!draft);
    if (!draft) return;
    const need = needs(draft);
    const rows = [el("p", {class: "draft-card"}, "Played: " + draft.card.text)];
    const choices = el("div", {class: "tabs"});
    if (need === "color") {
      rows.push(el("p", {}, "Which colour did the player choose?"));
      for (const [code, name] of COLOURS.slice(0, 4)) choices.append(button(name, {class: "c-" + code, "data-choose-color": code}, () => { draft.color = code; advance(); }));
    } else if (need === "target") {
      rows.push(el("p", {}, "Aimed at whom?"));
      state.players.forEach((name, i) => { if (i !== state.current) choices.append(button(name, {"data-target": String(i)}, () => { draft.seat = i; advance(); })); });
    } else if (need === "count") {
      rows.push(el("p", {}, "How many other " + (draft.card.text.split(" ")[0] || "") + " cards went with it?"));
      for (let n = 0; n <= 8; n++) choices.append(button(String(n), {"data-count": String(n)}, () => { draft.count = n; advance(); }));
    }
    rows.push(choices, button("Cancel", {id: "draft-cancel"}, () => { draft = null; render(); }));
    $("draft").replaceChildren(...rows);
  }

  function renderPicker() {
    const scoring = state.phase === "scoring";
    const entering = ["start", "playing", "stack", "play_again"].includes(state.phase) && !state.jam && !draft;
    show("picker", deck.length > 0 && (entering || scoring));
    $("picker-title").textContent = scoring ? "Tap the cards left in " + (scorer === null ? "a hand" : state.players[scorer] + "'s hand")
      : state.phase === "start" ? "Tap the card turned up" : "Tap the card " + state.players[state.current] + " played";
    $("uno-label").classList.toggle("hidden", scoring || state.phase === "start");
    $("colours").replaceChildren(...COLOURS.map(([code, name]) => button(name, {class: "c-" + code, "data-color": code, "aria-pressed": String(tab === code)}, () => { tab = code; renderPicker(); })));
    const shown = deck.filter((c) => (tab === "W" ? c.wild : c.color === tab && !c.wild));
    $("cards").replaceChildren(...shown.map((c) => button(c.text, {class: "c-" + (c.wild ? "W" : c.color), "data-card": c.code},
      () => (scoring ? addLeft(c) : pick(c)))));
  }

  // -- round scoring: tap the cards left in each hand ---------------------------------------
  function addLeft(card) {
    if (scorer === null) { showError("first tap whose hand it is"); return; }
    left[scorer].push(card.code);
    renderScoring();
  }

  function renderScoring() {
    const scoring = state.phase === "scoring";
    show("scoring", scoring);
    show("score-seats", scoring);
    if (!scoring) return;
    const others = state.players.map((n, i) => i).filter((i) => i !== state.round_winner);
    if (scorer === null) scorer = others[0];
    $("score-seats").replaceChildren(...others.map((i) => button(state.players[i], {"data-score-seat": String(i), "aria-pressed": String(scorer === i)}, () => { scorer = i; render(); })));
    const rows = [el("h2", {}, state.players[state.round_winner] + " went out. Cards left in each hand:")];
    for (const i of others) {
      rows.push(el("strong", {}, state.players[i] + " (" + left[i].length + " card" + (left[i].length === 1 ? "" : "s") + ")"));
      const cards = el("div", {class: "left", "data-left": String(i)});
      cards.append(...left[i].map((code, k) => button(cardOf(code).text + " ✕", {class: "c-" + (cardOf(code).wild ? "W" : cardOf(code).color), "aria-label": "remove " + cardOf(code).text},
        () => { left[i].splice(k, 1); renderScoring(); })));
      rows.push(cards);
    }
    rows.push(button("Score the round", {id: "score-submit"}, () => send({type: "score", hands: left})));
    $("scoring").replaceChildren(...rows);
  }

  $("press").addEventListener("click", () => { showError(""); send({type: "entry", op: "press"}); });
  $("done").addEventListener("click", () => { showError(""); send({type: "entry", op: "done"}); });
  connect();
})();
