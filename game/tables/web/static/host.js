// The host page: the table, every seat's join link with its QR code, and the jam controls.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const base = location.pathname.replace(/\/$/, "");

  function jamControls(jam) {
    if (!jam) {  // a launcher failure, not a jam: the host presses again once it is fixed
      const press = Uno.el("button", {id: "press-again"}, "Press the launcher again");
      press.addEventListener("click", () => Uno.send({type: "press"}));
      return [press];
    }
    const input = Uno.el("input", {type: "number", min: "0", max: "200", value: "0", id: "pulled", "aria-label": "cards pulled out by hand"});
    const done = Uno.el("button", {id: "jam-done"}, "Cleared: cards pulled out →");
    done.addEventListener("click", () => Uno.send({type: "jam", pulled: Number(input.value)}));
    const again = Uno.el("button", {id: "jam-again"}, "Cleared: press again");
    again.addEventListener("click", () => Uno.send({type: "jam", pulled: null}));
    return [Uno.el("label", {for: "pulled"}, "Cards pulled out by hand: "), input, done, again];
  }

  async function loadLinks() {
    const response = await fetch(base + "/links.json", {cache: "no-store"});
    if (!response.ok) return;
    const links = await response.json();
    $("table-link").textContent = "Table screen: " + links.table;
    $("links").replaceChildren(...links.seats.map((s) => {
      const item = Uno.el("li");
      item.append(Uno.el("strong", {}, s.name), Uno.el("br"));
      item.append(Uno.el("img", {src: base + "/qr/" + s.seat + ".svg", alt: "QR code for " + s.name}));
      const link = Uno.el("a", {href: s.url, rel: "noreferrer"}, s.url);
      item.append(link);
      return item;
    }));
  }

  Uno.start({
    update: (data, feed) => TablePage.render(data, feed, jamControls),
    error: (text) => { const box = $("error"); box.textContent = text; box.classList.remove("hidden"); },
  });
  loadLinks();
})();
