// cardboard serve's page: a form that starts a game, then the frames of its WebSocket drawn as they come.
// Everything shown comes from the server's frames (built from one seat's view); text is set with textContent only.
"use strict";

const $ = (selector) => document.querySelector(selector);
let catalog = null, socket = null, frame = null, drawn = null, menuPath = [], log = [], autoplay = null, delay = 300;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : String(child));
  return node;
}

function showError(message) {
  const box = $("#error");
  box.textContent = message;
  box.hidden = !message;
}

function players() {
  const game = catalog.games.find((g) => g.name === $("#game").value);
  const match = /(?:^|\s)players=(\d+)/.exec($("#options").value);
  return match ? Number(match[1]) : game ? game.players : 2;
}

function fillSeats() {
  const game = catalog.games.find((g) => g.name === $("#game").value);
  const values = Object.entries(game.values).map(([k, v]) => `${k}: ${v.join(" | ")}`).join("\n");
  $("#options").title = "defaults: " + Object.entries(game.options).map(([k, v]) => `${k}=${v}`).join(" ") +
    (values ? "\nbundled values (the page names no file):\n" + values : "");
  const n = players();
  $("#seat").replaceChildren(...Array.from({length: n}, (_, k) => el("option", {value: k}, `seat ${k}`)));
  $("#view").replaceChildren(el("option", {value: ""}, "spectator"),
    ...Array.from({length: Math.max(n, 4)}, (_, k) => el("option", {value: k}, `seat ${k}`)));
}

function showMode() {
  const mode = $("#mode").value;
  document.querySelectorAll("[data-modes]").forEach((span) => {
    span.hidden = !span.dataset.modes.split(" ").includes(mode);
  });
}

async function init() {
  catalog = await (await fetch("/api/catalog")).json();
  $("#game").replaceChildren(...catalog.games.map((g) => el("option", {value: g.name, title: g.summary}, g.name)));
  $("#agent-names").replaceChildren(...catalog.agents.map((name) => el("option", {value: name})));
  $("#source").replaceChildren(...catalog.replays.map((label, k) => el("option", {value: k}, label)));
  $("#game").addEventListener("change", fillSeats);
  $("#options").addEventListener("input", fillSeats);
  $("#mode").addEventListener("change", showMode);
  $("#start").addEventListener("submit", start);
  fillSeats();
  showMode();
  // The form from the address, e.g. ?mode=watch&game=pandemic&options=players=2&view=1: the fields that decide
  // the seats first, then the rest (a seat set before fillSeats would be replaced).
  const params = new URLSearchParams(location.search);
  const fill = (keys) => {
    for (const key of keys) {
      const input = params.has(key) ? $(`#start [name="${key}"]`) : null;
      if (input) input.value = params.get(key);
    }
  };
  fill(["mode", "game", "options"]);
  fillSeats();
  showMode();
  fill(["agents", "seed", "seat", "view", "source", "index"]);
  // ?start starts the game only when this server's own page led here: a link from another site fills the form
  // and waits for the visitor's click (it may not start a game in their session).
  let fromHere = false;
  try { fromHere = new URL(document.referrer).origin === location.origin; } catch { fromHere = false; }
  if (params.has("start") && fromHere) start();
}

async function start(event) {
  if (event) event.preventDefault();
  const form = new FormData($("#start"));
  const number = (name) => form.get(name) === "" || form.get(name) === null ? null : Number(form.get(name));
  const mode = form.get("mode");  // a seed only for watching: a played game's seed is the server's until the end
  const body = {mode, game: form.get("game"), options: form.get("options"), agents: form.get("agents"),
                seed: mode === "watch" ? number("seed") : null, seat: number("seat"), view: number("view"),
                source: number("source"), index: number("index")};
  showError("");
  const response = await fetch("/api/games", {method: "POST", headers: {"Content-Type": "application/json"},
                                              body: JSON.stringify(body)});
  let answer;
  try { answer = await response.json(); } catch { answer = {error: `server error (HTTP ${response.status})`}; }
  if (answer.error) { showError(answer.error); return; }
  connect(answer.id, body.mode);
}

function connect(id, mode) {
  if (socket) socket.close();
  stopAutoplay();
  frame = null; drawn = null; log = []; menuPath = [];
  socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/${id}`);
  let drawing = null;  // frames that come in a burst (the agents' moves) are drawn once, at the next paint
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "error") { showError(message.message); return; }
    log = log.slice(0, message.log_from).concat(message.log);
    frame = message;
    drawing = drawing || requestAnimationFrame(() => { drawing = null; render(mode); });
  };
  socket.onclose = (event) => { if (event.code === 4404) $("#table").hidden = true; };
  $("#table").hidden = false;
  $("#table").dataset.mode = mode;
}

function send(message) {
  showError("");
  socket.send(JSON.stringify(message));
}

// -- drawing -------------------------------------------------------------------------------------------------
function cardNode(card) {
  if (card.hidden) return el("div", {class: "card back", "data-card": "?"}, "?");
  const node = el("div", {class: "card " + card.tags.join(" "), "data-card": card.name, title: card.text});
  const head = el("div", {class: "card-head"}, el("span", {class: "card-name"}, card.name));
  if (card.cost !== null) head.append(el("span", {class: "cost"}, card.cost));
  node.append(head);
  const stats = Object.entries(card.stats);
  if (stats.length) node.append(el("div", {class: "card-stats"}, stats.map(([k, v]) => `${k} ${v}`).join(" · ")));
  if (card.text) node.append(el("div", {class: "card-text"}, card.text));
  if (card.tags.length) node.append(el("div", {class: "tags"}, card.tags.join(", ")));
  return node;
}

function counters(values) {
  return Object.entries(values).map(([k, v]) => `${k} ${v}`).join(" · ");
}

function drawGrid(view) {
  const [rows, cols] = view.grid;
  const grid = el("div", {class: "grid", style: `grid-template-columns: repeat(${cols}, 1fr)`});
  for (const cell of view.cells) {
    const node = el("div", {class: `cell owner-${cell.owner}`,
                            style: `grid-row: ${cell.row + 1}; grid-column: ${cell.col + 1}`});
    if (cell.card) node.append(cardNode(cell.card));
    else if (cell.text) node.append(el("span", {class: "cell-text"}, cell.text));
    grid.append(node);
  }
  grid.style.gridTemplateRows = `repeat(${rows}, auto)`;
  return grid;
}

function drawGraph(view) {
  const svgNS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNS, "svg");
  svg.setAttribute("viewBox", "0 0 1000 520");
  svg.setAttribute("class", "graph");
  const at = Object.fromEntries(view.nodes.map((n) => [n.name, [20 + n.x * 880, 20 + n.y * 470]]));
  const make = (tag, attrs, text) => {
    const node = document.createElementNS(svgNS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    svg.append(node);
    return node;
  };
  for (const node of view.nodes) {
    for (const other of node.links) {
      if (node.name < other && at[other] && Math.abs(at[node.name][0] - at[other][0]) < 500) {
        make("line", {x1: at[node.name][0], y1: at[node.name][1], x2: at[other][0], y2: at[other][1], class: "link"});
      }
    }
  }
  for (const node of view.nodes) {
    const [x, y] = at[node.name];
    const tags = node.tags.map((tag) => tag.replace(/\W+/g, "-"));
    make("circle", {cx: x, cy: y, r: 7, class: "city " + tags.join(" ")});
    make("text", {x: x + 9, y: y + 4, class: "city-name"}, node.name);
    const text = counters(node.counters);
    if (text) make("text", {x: x + 9, y: y + 16, class: "city-counters"}, text);
    const people = node.tags.filter((tag) => /^(seat|player) /.test(tag));  // pawns: the seats' names
    if (people.length) make("text", {x: x - 8, y: y - 10, class: "city-people"}, people.join(", "));
  }
  return svg;
}

function drawMoves() {
  const moves = $("#moves"), crumbs = $("#crumbs");
  moves.replaceChildren();
  crumbs.replaceChildren();
  if (!frame || !frame.menu) {
    moves.append(el("p", {class: "quiet"}, frame && !frame.over && frame.agents.includes("you") ? "waiting..." : "—"));
    return;
  }
  let node = frame.menu;
  for (const label of menuPath) node = node[label];
  if (menuPath.length) {
    crumbs.append(el("button", {class: "crumb", "data-back": "", onclick: () => { menuPath = []; drawMoves(); }},
                     "all moves"), " › " + menuPath.join(" › "));
  }
  for (const [label, child] of Object.entries(node)) {
    if (typeof child === "number") {
      moves.append(el("button", {class: "move", "data-leaf": child, onclick: () => {
        moves.replaceChildren();
        send({type: "move", version: frame.version, action: child});
      }}, label));
    } else {
      moves.append(el("button", {class: "group", "data-group": label, onclick: () => {
        menuPath.push(label); drawMoves();
      }}, label + " ›"));
    }
  }
}

function drawStats() {
  const box = $("#stats");
  box.replaceChildren();
  if (!frame.stats) return;
  const rows = frame.stats.moves.map((m) => el("tr", {class: m.chosen ? "chosen" : ""}, el("td", {}, m.move),
                                                 el("td", {}, m.visits), el("td", {}, m.value ?? "")));
  box.append(el("h3", {}, `player ${frame.stats.player} (${frame.stats.agent}) searched`),
             el("table", {}, el("tr", {}, el("th", {}, "move"), el("th", {}, "visits"), el("th", {}, "value")),
                ...rows));
}

function drawControls(mode) {
  const box = $("#controls");
  const seed = frame.seed === null || frame.seed === undefined ? [] : [el("span", {class: "quiet", id: "seed-shown"},
                                                                          ` seed ${frame.seed}`)];  // at the end
  if (mode === "watch") {
    box.replaceChildren(
      el("button", {id: "step", onclick: () => { stopAutoplay(); send({type: "step"}); }}, "step"),
      el("button", {id: "run", onclick: () => (autoplay ? stopAutoplay() : startAutoplay())},
         autoplay ? "pause" : "play"),
      el("label", {}, "delay ", el("select", {id: "delay", onchange: (event) => { delay = Number(event.target.value); }},
        ...[0, 100, 300, 1000].map((ms) => el("option", {value: ms, ...(ms === delay ? {selected: ""} : {})},
                                               `${ms} ms`)))), ...seed);
  } else if (mode === "replay") {
    const go = (step) => send({type: "goto", step});
    const range = el("input", {type: "range", id: "scrub", min: 0, max: frame.steps - 1, value: frame.step,
                               oninput: (event) => go(Number(event.target.value))});
    box.replaceChildren(el("button", {id: "first", onclick: () => go(0)}, "|◀"),
                        el("button", {id: "back", onclick: () => go(frame.step - 1)}, "◀"),
                        el("button", {id: "forward", onclick: () => go(frame.step + 1)}, "▶"),
                        el("button", {id: "last", onclick: () => go(frame.steps - 1)}, "▶|"), range,
                        el("span", {}, ` step ${frame.step} / ${frame.steps - 1}`));
  } else {
    box.replaceChildren(...seed);
  }
}

function startAutoplay() {
  autoplay = true;
  drawControls("watch");
  if (!frame.over) send({type: "step"});
}

function stopAutoplay() {
  if (typeof autoplay === "number") clearTimeout(autoplay);
  autoplay = null;
  if (frame && $("#table").dataset.mode === "watch") drawControls("watch");
}

function render(mode) {
  if (drawn !== frame.version) menuPath = [];
  drawn = frame.version;
  const view = frame.view;
  const status = $("#status");
  const who = frame.seat === null ? "spectator" : `seat ${frame.seat}`;
  status.textContent = `${view.title} — ${frame.status}${frame.menu ? " — your move" : ""} (${who})`;
  status.dataset.over = frame.over ? "1" : "0";
  status.dataset.version = frame.version;
  $("#seats").replaceChildren(...view.seats.map((seat, k) => el("div", {class: `seat owner-${k}`},
    el("strong", {}, `${seat.name}${frame.agents[k] ? ` (${frame.agents[k]})` : ""}`), " ", counters(seat.counters))));
  if (Object.keys(view.counters).length) $("#seats").append(el("div", {class: "seat shared"}, counters(view.counters)));
  const board = $("#board");
  board.replaceChildren();
  if (view.grid) board.append(drawGrid(view));
  if (view.nodes.length) board.append(drawGraph(view));
  $("#zones").replaceChildren(...view.zones.map((zone) => el("div", {class: `zone owner-${zone.owner}`},
    el("h3", {}, `${zone.name} (${zone.cards.length})`), el("div", {class: "cards"}, ...zone.cards.map(cardNode)))));
  const generic = !view.grid && !view.nodes.length && !view.zones.length;
  $("#text").textContent = view.text;
  $("#text").hidden = !generic;
  $("#log").replaceChildren(...log.map((line) => el("li", {}, line)));
  $("#log").scrollTop = $("#log").scrollHeight;
  drawMoves();
  drawStats();
  drawControls(mode);
  if (mode === "watch" && autoplay && !frame.over) {
    autoplay = setTimeout(() => send({type: "step"}), delay);
  } else if (frame.over) {
    stopAutoplay();
  }
}

init();
