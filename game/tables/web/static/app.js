// uno-attack web table: the shared client. No framework, no build step.
// Connects to /ws with the page's token, remembers the last version it saw (a reload or a
// dropped connection rejoins and gets the events it missed), and hands each update to the page.
"use strict";

const Uno = (() => {
  const parts = location.pathname.split("/");
  const token = (parts[1] === "seat" || parts[1] === "host") ? parts[2] : null;
  const storeKey = "uno-attack:" + location.pathname;
  let socket = null;
  let version = null;
  let retry = 500;
  let closedForGood = false;
  let handlers = {};
  let heard = Date.now();
  const PING_AFTER = 20000, DEAD_AFTER = 35000;
  const saved = JSON.parse(sessionStorage.getItem(storeKey) || "null");
  let feed = saved && Array.isArray(saved.feed) ? saved.feed : [];
  if (saved && Number.isInteger(saved.version)) version = saved.version;

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v; else node.setAttribute(k, v);
    }
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function card(c, big) {
    return el("span", {class: "card" + (c.color ? " c-" + c.color : "") + (big ? " big" : "")}, c.text);
  }

  function status(text) {
    const node = document.getElementById("connection");
    if (node) node.textContent = text;
  }

  function save() {
    sessionStorage.setItem(storeKey, JSON.stringify({version, feed: feed.slice(-60)}));
  }

  function connect() {
    if (closedForGood) return;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const query = token ? "?token=" + encodeURIComponent(token) : "";
    socket = new WebSocket(scheme + "//" + location.host + "/ws" + query);
    status("connecting…");
    socket.onopen = () => {
      retry = 500;
      heard = Date.now();
      status("connected");
      socket.send(JSON.stringify({type: "hello", version}));
    };
    socket.onmessage = (message) => {
      heard = Date.now();
      const data = JSON.parse(message.data);
      if (data.type === "update") {
        if (data.reset) feed = [];
        for (const e of data.events) if (e.text) feed.push({version: e.version, text: e.text, type: e.event.type});
        if (feed.length > 200) feed = feed.slice(-200);
        version = data.version;
        save();
        if (handlers.update) handlers.update(data, feed);
      } else if (data.type === "error") {
        if (data.fatal) closedForGood = true;
        if (handlers.error) handlers.error(data.message);
      }
    };
    socket.onclose = (event) => {
      if (event.code === 4403) { closedForGood = true; status("this link is not valid"); return; }
      status("reconnecting…");
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 5000);
    };
  }

  // A phone that slept may hold a socket that is dead without knowing: ping, and reconnect
  // when nothing comes back (the server sends the events missed in between).
  setInterval(() => {
    if (!socket || socket.readyState !== 1) return;
    const quiet = Date.now() - heard;
    if (quiet > DEAD_AFTER) socket.close();
    else if (quiet > PING_AFTER) socket.send(JSON.stringify({type: "ping"}));
  }, 5000);

  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && socket && socket.readyState > 1) connect();
  });

  function send(action) {
    if (!socket || socket.readyState !== 1) { if (handlers.error) handlers.error("not connected: wait a moment"); return; }
    socket.send(JSON.stringify(action));
  }

  function renderFeed(list, entries, limit) {
    list.replaceChildren(...entries.slice(-limit).reverse().map(
      (e) => el("li", {class: e.type === "hit" ? "hit" : ""}, e.text)));
  }

  function renderSeats(list, view) {
    list.replaceChildren(...view.names.map((name, i) => {
      const playing = i === view.decider && view.turn_name !== null;
      const item = el("li", {class: playing ? "turn" : ""});
      const who = name + (view.bots[i] ? " (bot)" : "") + (playing ? " — to play" : "");
      item.append(el("strong", {}, who), el("br"));
      item.append(el("span", {}, view.hand_sizes[i] + " card" + (view.hand_sizes[i] === 1 ? "" : "s") +
        (view.hand_sizes[i] === 1 ? " · UNO!" : "") + " · " + view.scores[i] + " pts"));
      return item;
    }));
  }

  // Whose turn, or the round's result once nobody is to play (never "Turn: undefined").
  function turnText(view) {
    if (view.turn_name !== null && view.turn_name !== undefined) return "Turn: " + view.turn_name;
    return view.result ? view.result.text : "Waiting for the next round";
  }

  function renderStatus(node, view) {
    node.replaceChildren(
      card(view.top, true),
      el("span", {}, "Colour: " + view.color_name),
      el("span", {}, "Play goes " + view.direction_text),
      el("span", {}, "Round " + view.round + " · to " + view.target),
      el("span", {class: "turn-text"}, turnText(view)));
  }

  // The last press only while it is the latest news: a later play makes it history.
  function lastPress(entries) {
    const last = entries[entries.length - 1];
    return last && last.type === "hit" ? last : null;
  }

  function start(on) { handlers = on; if (feed.length && on.restore) on.restore(feed); connect(); }

  return {start, send, el, card, renderFeed, renderSeats, renderStatus, turnText, lastPress, get version() { return version; }};
})();
