// The play page of agents.commands.web.server, in plain JavaScript: it only ever sends the number of a move.
// The page comes with the game as it stands (#first-state, the answer GET /api/state would give), so
// it shows the table and the moves without a request. Each move's answer lists every move up to the
// player's next choice; their tables are shown one after another, DELAY milliseconds apart
// (?delay=N in the page's address; 0 shows only the last).
"use strict";

const DELAY = (() => {
  const asked = Number(new URLSearchParams(window.location.search).get("delay"));
  return Number.isFinite(asked) && asked >= 0 ? Math.min(asked, 5000) : 350;
})();

let current = null; // the last state the server sent
let busy = false; // a request or a replay is under way

const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((resolve) => window.setTimeout(resolve, ms));

async function api(method, path, body) {
  const options = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    data = null;
  }
  if (!response.ok) {
    throw new Error(data && data.error ? data.error : `${response.status} ${response.statusText}`);
  }
  return data;
}

function showTable(svg) {
  const table = $("table");
  table.innerHTML = svg; // drawn by the server from the public table (text escaped by svgwrite)
  const drawing = table.querySelector("svg");
  if (drawing && !drawing.getAttribute("viewBox")) {
    const width = parseFloat(drawing.getAttribute("width"));
    const height = parseFloat(drawing.getAttribute("height"));
    if (width && height) {
      drawing.setAttribute("viewBox", `0 0 ${width} ${height}`);
    }
  }
  if (drawing) {
    drawing.setAttribute("role", "img");
    drawing.setAttribute("aria-label", "the table");
  }
}

function logLine(text) {
  const item = document.createElement("li");
  item.textContent = text;
  if (text.startsWith("you ")) {
    item.className = "mine";
  }
  $("log").appendChild(item);
}

function scrollLog() {
  const log = $("log");
  log.scrollTop = log.scrollHeight;
}

function showError(message) {
  const error = $("error");
  error.textContent = message || "";
  error.hidden = !message;
}

function setBusy(value) {
  busy = value;
  for (const button of document.querySelectorAll("#moves button, #new-game")) {
    button.disabled = value;
  }
  if (value) {
    document.body.dataset.state = "busy";
  }
}

function moveButton(move) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "move";
  button.dataset.action = String(move.action);
  button.title = move.text;
  const number = document.createElement("span");
  number.className = "number";
  number.textContent = String(move.action);
  const name = document.createElement("span");
  name.className = "name";
  name.textContent = move.name;
  button.append(number, name);
  if (move.text && move.text !== move.name) {
    const detail = document.createElement("span");
    detail.className = "detail";
    detail.textContent = move.text;
    button.appendChild(detail);
  }
  button.addEventListener("click", () => play(move.action));
  return button;
}

function render(state) {
  current = state;
  $("title").textContent = state.title;
  showTable(state.svg);
  const moves = $("moves");
  moves.replaceChildren(...state.legal.map(moveButton));
  if (state.over) {
    $("status").textContent = "The game is over.";
  } else if (state.your_turn) {
    $("status").textContent = "Your move:";
  } else {
    $("status").textContent = `${state.to_act} is to act.`;
  }
  const result = $("result");
  if (state.result) {
    $("result-text").textContent = state.result.text;
    const returns = state.names.map((name, seat) => {
      const item = document.createElement("li");
      const value = state.result.returns[seat];
      item.textContent = `${name}: ${value > 0 ? "+" : ""}${value}`;
      return item;
    });
    $("returns").replaceChildren(...returns);
    result.hidden = false;
  } else {
    result.hidden = true;
  }
  $("log").replaceChildren();
  state.log.forEach(logLine);
  scrollLog();
  document.body.dataset.game = String(state.game);
  document.body.dataset.state = state.over ? "over" : state.your_turn ? "your-turn" : "waiting";
}

async function replay(steps) {
  // Each move of the answer in turn: its table and its lines, then a pause.
  if (DELAY <= 0) {
    return;
  }
  for (const step of steps) {
    showTable(step.svg);
    step.lines.forEach(logLine);
    scrollLog();
    await sleep(DELAY);
  }
}

async function send(path, body, clearLog) {
  if (busy) {
    return;
  }
  setBusy(true);
  showError("");
  $("moves").replaceChildren();
  try {
    const answer = await api("POST", path, body);
    if (clearLog) {
      $("log").replaceChildren();
      $("result").hidden = true;
    }
    await replay(answer.steps);
    render(answer.state);
  } catch (error) {
    showError(error.message);
    await refresh();
  } finally {
    setBusy(false);
    if (current) {
      document.body.dataset.state = current.over ? "over" : current.your_turn ? "your-turn" : "waiting";
    }
  }
}

function play(action) {
  const at = current ? { game: current.game, position: current.position } : {};
  return send("/api/move", { action, ...at }, false);
}

function newGame() {
  return send("/api/new", undefined, true); // an empty POST: a new game takes no options
}

async function refresh() {
  try {
    render(await api("GET", "/api/state"));
  } catch (error) {
    showError(error.message);
  }
}

function start() {
  // The state the page came with; a request only if it is missing or unreadable.
  let first = null;
  try {
    first = JSON.parse($("first-state").textContent);
  } catch (error) {
    first = null;
  }
  if (first && first.svg) {
    render(first);
  } else {
    refresh();
  }
}

$("new-game").addEventListener("click", newGame);
start();
