// The fortap suggestion page: upload, a virtualised grid, suggestions, accept, download; the
// cells coloured by type (the cell-type model) and a question box (the table-QA model). The
// findings toggle (the audit's flagged cells, a fix one click away) is in findings.js, the
// Recover formulas panel (formulas put back where the sheet holds only values) in recover.js.
// Plain browser JavaScript, no build step. The grid draws only the rows and columns in view
// (plus a small margin) and fetches the cells in tiles of TILE_R x TILE_C as they come into view.
"use strict";

const ROW_H = 24, COL_W = 100, HEAD_W = 52, MARGIN = 2;
const TILE_R = 100, TILE_C = 50;
const $ = (id) => document.getElementById(id);
const grid = $("grid"), layer = $("layer"), spacer = $("spacer");

const state = {
  book: null,        // the upload's description from POST /workbooks
  sheet: null,       // the sheet's entry in book.sheets
  cells: new Map(),  // "row,col" (1-based) -> cell JSON
  merged: [],        // [{top, left, bottom, right}] 1-based
  tiles: new Set(),  // tiles asked for: "tr,tc"
  sel: { row: 1, col: 1 },
  rows: 0, cols: 0,  // rows and columns drawn: the used range and a little room below/right
  open: null,        // {row, col, list, hi} while the suggestion panel shows
  ask: 0,            // id of the latest suggest request; older answers are dropped
  unsaved: false,    // formulas were accepted since the last download
  colour: false,     // the cell-type toggle is on
  types: new Map(),  // sheet name -> {colours: type -> colour, cells: A1 -> {type, probability, from}}
  answer: null,      // {sheet, refs: Set of A1, formula} of the last answer shown
  asked: 0,          // id of the latest question; older answers are dropped
  flag: false,       // the findings toggle is on (findings.js)
  findings: new Map(), // sheet name -> {colours: kind -> colour, cells: A1 -> finding, list, ...}
  recover: null,     // {sheet, minScore, typed, list, cells: A1 -> formula} while its panel shows
  recovering: 0,     // id of the latest recover request; older answers are dropped (recover.js)
};

function letters(col) {
  let s = "";
  for (let n = col; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}
const a1 = (row, col) => letters(col) + row;
function parseA1(text) {
  const m = /^([A-Z]+)(\d+)$/.exec(text);
  let col = 0;
  for (const ch of m[1]) col = col * 26 + ch.charCodeAt(0) - 64;
  return { row: Number(m[2]), col };
}

function status(text, error = false) {
  const el = $("status");
  el.textContent = text;
  el.classList.toggle("error", error);
}

// The server's per-start token, written into the page; every request that changes state sends it.
const TOKEN = document.querySelector('meta[name="fortap-token"]').content;

async function api(method, path, body) {
  const init = { method, headers: { "X-Fortap-Token": TOKEN } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const res = await fetch(path, init);
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) throw new Error((data && data.detail) || `${res.status} ${res.statusText}`);
  return data;
}

function display(cell) {
  if (!cell) return "";
  const v = cell.value;
  if (v === null || v === undefined) return "";
  if (typeof v === "boolean") return v ? "TRUE" : "FALSE";
  if (typeof v === "number") return formatNumber(v, cell.number_format || "General");
  return String(v);
}

function formatNumber(v, nf) {
  const dec = /0\.(0+)/.exec(nf);
  const digits = dec ? dec[1].length : 0;
  if (nf.includes("%")) return (v * 100).toFixed(digits) + "%";
  if (nf !== "General" && /[0#]/.test(nf)) {
    const opts = { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: nf.includes(",") };
    return v.toLocaleString("en-US", opts);
  }
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(10)));
}

// ---- loading -----------------------------------------------------------------------------

async function upload(file) {
  status(`Uploading ${file.name}…`);
  const form = new FormData();
  form.append("file", file);
  try {
    const book = await api("POST", "/workbooks", form);
    // a workbook with accepted formulas not yet downloaded is kept: the server never evicts it
    if (state.book && !state.unsaved) api("DELETE", `/workbooks/${state.book.id}`).catch(() => {});
    state.book = book;
    state.unsaved = false;
    state.types = new Map();
    state.findings = new Map();
  } catch (err) {
    status(err.message, true);
    return;
  }
  const book = state.book;
  const pick = $("sheet");
  pick.replaceChildren(...book.sheets.map((s) => new Option(`${s.name} (${s.used_range})`, s.name)));
  pick.disabled = false;
  const dl = $("download");
  dl.href = `/workbooks/${book.id}/download`;
  dl.onclick = () => { state.unsaved = false; };
  dl.hidden = false;
  const notes = $("not-kept");
  notes.hidden = book.not_kept.length === 0;
  notes.textContent = "The .xlsx download will not keep: " + book.not_kept.join("; ") + ".";
  $("types").disabled = false;
  $("flags").disabled = false;
  $("recover-btn").disabled = false;
  $("ask").hidden = false;
  status(`${book.name}: ${book.sheets.length} sheet(s)`);
  showSheet(book.sheets[0].name);
}

function showSheet(name) {
  state.sheet = state.book.sheets.find((s) => s.name === name);
  state.cells = new Map();
  state.merged = [];
  state.tiles = new Set();
  state.rows = Math.max(state.sheet.n_rows + 20, 50);
  state.cols = Math.max(state.sheet.n_cols + 5, 12);
  state.sel = { row: 1, col: 1 };
  closePanel();
  spacer.style.width = `${HEAD_W + state.cols * COL_W}px`;
  spacer.style.height = `${ROW_H + state.rows * ROW_H}px`;
  grid.scrollTo(0, 0);
  $("sheet").value = name;
  clearAnswer();
  render();
  if (state.colour) loadTypes();
  if (state.flag) loadFindings();
  grid.focus();
}

async function loadTile(tr, tc) {
  const key = `${tr},${tc}`;
  if (state.tiles.has(key)) return;
  state.tiles.add(key);
  const sheet = state.sheet;
  const top = tr * TILE_R + 1, left = tc * TILE_C + 1;
  const range = `${a1(top, left)}:${a1(top + TILE_R - 1, left + TILE_C - 1)}`;
  const path = `/workbooks/${state.book.id}/sheets/${encodeURIComponent(sheet.name)}?range=${range}`;
  let data;
  try {
    data = await api("GET", path);
  } catch (err) {
    state.tiles.delete(key);
    status(err.message, true);
    return;
  }
  if (state.sheet !== sheet) return;
  for (const cell of data.cells) state.cells.set(`${cell.row},${cell.col}`, cell);
  for (const m of data.merged) addMerged(m);
  render();
}

function addMerged(text) {
  const [p, q] = text.split(":");
  const a = parseA1(p), b = parseA1(q || p);
  if (state.merged.some((m) => m.top === a.row && m.left === a.col)) return;
  state.merged.push({ top: a.row, left: a.col, bottom: b.row, right: b.col });
}

// ---- drawing -----------------------------------------------------------------------------

function visible() {
  const top = Math.max(1, Math.floor(grid.scrollTop / ROW_H) + 1 - MARGIN);
  const bottom = Math.min(state.rows, Math.ceil((grid.scrollTop + grid.clientHeight) / ROW_H) + MARGIN);
  const left = Math.max(1, Math.floor(grid.scrollLeft / COL_W) + 1 - MARGIN);
  const right = Math.min(state.cols, Math.ceil((grid.scrollLeft + grid.clientWidth) / COL_W) + MARGIN);
  return { top, bottom, left, right };
}

function box(el, x, y, w, h) {
  el.style.left = `${x}px`;
  el.style.top = `${y}px`;
  el.style.width = `${w}px`;
  if (h !== ROW_H) el.style.height = `${h}px`;
  return el;
}

function cellDiv(row, col, rows = 1, cols = 1) {
  const cell = state.cells.get(`${row},${col}`);
  const el = document.createElement("div");
  el.className = "c";
  el.dataset.a1 = a1(row, col);
  if (cell) {
    el.textContent = display(cell);
    if (typeof cell.value === "number") el.classList.add("num");
    if (cell.bold) el.classList.add("b");
    if (cell.accepted) el.classList.add("acc");
    else if (cell.formula) el.classList.add("f");
    if (typeof cell.value === "string" && /^#[A-Z/0!?]+/.test(cell.value)) el.classList.add("err");
    if (cell.formula) el.title = cell.formula;
  }
  const typed = state.colour && state.types.get(state.sheet.name);
  const kind = typed && typed.cells.get(el.dataset.a1);
  if (kind) {
    el.dataset.type = kind.type;
    el.style.background = typed.colours[kind.type];
    const why = kind.from === "formula" ? "from its formula" : kind.probability.toFixed(2);
    el.title = [el.title, `${kind.type.replace("_", " ")} (${why})`].filter(Boolean).join(" · ");
  }
  const answer = state.answer;
  if (answer && answer.sheet === state.sheet.name && answer.refs.has(el.dataset.a1)) el.classList.add("qa");
  if (state.flag) markFinding(el);
  if (state.recover) markRecovered(el);
  if (state.sel.row === row && state.sel.col === col) el.classList.add("sel");
  return box(el, HEAD_W + (col - 1) * COL_W, ROW_H + (row - 1) * ROW_H, cols * COL_W, rows * ROW_H);
}

function render() {
  if (!state.sheet) return;
  const v = visible();
  const frag = document.createDocumentFragment();
  const covered = new Set();
  for (const m of state.merged) {
    if (m.bottom < v.top || m.top > v.bottom || m.right < v.left || m.left > v.right) continue;
    const el = cellDiv(m.top, m.left, m.bottom - m.top + 1, m.right - m.left + 1);
    el.classList.add("merged");
    frag.appendChild(el);
    for (let r = m.top; r <= m.bottom; r++) for (let c = m.left; c <= m.right; c++) covered.add(`${r},${c}`);
  }
  for (let r = v.top; r <= v.bottom; r++) {
    for (let c = v.left; c <= v.right; c++) if (!covered.has(`${r},${c}`)) frag.appendChild(cellDiv(r, c));
  }
  const sx = grid.scrollLeft, sy = grid.scrollTop;
  for (let c = v.left; c <= v.right; c++) {
    const el = box(document.createElement("div"), HEAD_W + (c - 1) * COL_W, sy, COL_W, ROW_H);
    el.className = c === state.sel.col ? "ch on" : "ch";
    el.textContent = letters(c);
    frag.appendChild(el);
  }
  for (let r = v.top; r <= v.bottom; r++) {
    const el = box(document.createElement("div"), sx, ROW_H + (r - 1) * ROW_H, HEAD_W, ROW_H);
    el.className = r === state.sel.row ? "rh on" : "rh";
    el.textContent = r;
    frag.appendChild(el);
  }
  const corner = box(document.createElement("div"), sx, sy, HEAD_W, ROW_H);
  corner.className = "corner";
  frag.appendChild(corner);
  layer.replaceChildren(frag);
  for (let tr = Math.floor((v.top - 1) / TILE_R); tr <= Math.floor((v.bottom - 1) / TILE_R); tr++) {
    for (let tc = Math.floor((v.left - 1) / TILE_C); tc <= Math.floor((v.right - 1) / TILE_C); tc++) {
      if ((tr * TILE_R) < state.sheet.n_rows && (tc * TILE_C) < state.sheet.n_cols) loadTile(tr, tc);
    }
  }
  formulaBar();
}

function formulaBar() {
  const { row, col } = state.sel;
  const cell = state.cells.get(`${row},${col}`);
  $("fb-cell").textContent = a1(row, col);
  $("fb-text").textContent = cell ? cell.formula || display(cell) : "";
}

// ---- selection and keys --------------------------------------------------------------------

function select(row, col) {
  state.sel = { row: Math.min(Math.max(row, 1), state.rows), col: Math.min(Math.max(col, 1), state.cols) };
  const y = ROW_H + (state.sel.row - 1) * ROW_H, x = HEAD_W + (state.sel.col - 1) * COL_W;
  if (y - ROW_H < grid.scrollTop) grid.scrollTop = y - ROW_H;
  else if (y + ROW_H > grid.scrollTop + grid.clientHeight) grid.scrollTop = y + ROW_H - grid.clientHeight;
  if (x - HEAD_W < grid.scrollLeft) grid.scrollLeft = x - HEAD_W;
  else if (x + COL_W > grid.scrollLeft + grid.clientWidth) grid.scrollLeft = x + COL_W - grid.clientWidth;
  if (state.answer) $("ask-cell").value = a1(state.sel.row, state.sel.col); // where the formula goes
  render();
}

layer.addEventListener("click", (ev) => {
  const el = ev.target.closest(".c");
  if (!el) return;
  const { row, col } = parseA1(el.dataset.a1);
  closePanel();
  select(row, col);
  grid.focus();
  if (state.flag && openFinding(row, col)) return; // a flagged cell shows its finding
  const cell = state.cells.get(`${row},${col}`);
  if (!cell || cell.value === null || cell.formula) openPanel(row, col);
});

grid.addEventListener("keydown", (ev) => {
  if (!state.sheet) return;
  const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], Enter: [1, 0] };
  if (ev.key in moves) {
    ev.preventDefault();
    closePanel();
    select(state.sel.row + moves[ev.key][0], state.sel.col + moves[ev.key][1]);
  } else if (ev.key === "Tab") {
    ev.preventDefault();
    if (state.open && state.open.list.length) accept(state.open.hi);
    else select(state.sel.row, state.sel.col + (ev.shiftKey ? -1 : 1));
  } else if (ev.key === "Escape") {
    closePanel();
  } else if (ev.key === "=") {
    ev.preventDefault();
    openPanel(state.sel.row, state.sel.col);
  }
});

grid.addEventListener("scroll", () => requestAnimationFrame(render));
window.addEventListener("resize", () => requestAnimationFrame(render));
$("file").addEventListener("change", (ev) => ev.target.files[0] && upload(ev.target.files[0]));
$("sheet").addEventListener("change", (ev) => showSheet(ev.target.value));
$("types").addEventListener("change", (ev) => {
  state.colour = ev.target.checked;
  if (state.colour) loadTypes();
  else drawLegend(null);
  render();
});
$("ask").addEventListener("submit", (ev) => { ev.preventDefault(); askQuestion(); });
$("ask-put-btn").addEventListener("click", putAnswer);

// ---- suggestions ---------------------------------------------------------------------------

async function openPanel(row, col) {
  const ask = ++state.ask;
  const sheet = state.sheet.name;
  $("finding").hidden = true; // "=" on a flagged cell: the suggestions take the finding's place
  closeRecover(); // and the recovered formulas' place
  $("suggest").hidden = false;
  $("sg-cell").textContent = `${sheet}!${a1(row, col)}`;
  $("sg-list").replaceChildren(item("Thinking…", "empty"));
  let data;
  try {
    data = await api("POST", `/workbooks/${state.book.id}/suggest`, { sheet, cell: a1(row, col), k: 5 });
  } catch (err) {
    if (ask === state.ask) $("sg-list").replaceChildren(item(err.message, "empty"));
    return;
  }
  if (ask !== state.ask || state.sheet.name !== sheet) return;
  state.open = { row, col, list: data.suggestions, hi: 0 };
  drawPanel();
}

function item(text, cls) {
  const li = document.createElement("li");
  li.className = cls;
  li.textContent = text;
  return li;
}

function drawPanel() {
  const open = state.open;
  if (!open.list.length) {
    $("sg-list").replaceChildren(item("No suggestion for this cell.", "empty"));
    return;
  }
  const items = open.list.map((s, i) => {
    const li = document.createElement("li");
    li.className = i === open.hi ? "sugg hi" : "sugg";
    const f = document.createElement("code");
    f.className = "formula";
    f.textContent = s.formula;
    const v = document.createElement("span");
    v.className = s.error ? "value err" : "value";
    v.textContent = s.error || display({ value: s.value, number_format: "General" });
    const why = document.createElement("span");
    why.className = "reason";
    why.textContent = `${s.reason} · ${s.source}`;
    li.append(v, f, why);
    if (s.note) {
      const note = document.createElement("span");
      note.className = "note";
      note.textContent = s.note;
      li.append(note);
    }
    li.addEventListener("click", () => accept(i));
    return li;
  });
  $("sg-list").replaceChildren(...items);
}

function closePanel() {
  state.ask++;
  state.open = null;
  $("suggest").hidden = true;
  $("finding").hidden = true;
  closeRecover();
}

function accept(i) {
  const { row, col, list } = state.open;
  const pick = list[i];
  closePanel();
  grid.focus();
  writeFormula(state.sheet.name, row, col, pick.formula, pick.value);
}

// Accepting a suggestion, putting an answer's formula into a cell and applying a finding's fix
// all write it here.
async function writeFormula(sheet, row, col, formula, shown = null) {
  let done;
  try {
    done = await api("POST", `/workbooks/${state.book.id}/cells`, { sheet, cell: a1(row, col), formula });
  } catch (err) {
    status(err.message, true);
    return;
  }
  state.unsaved = true;
  state.types.delete(sheet); // the server types the sheet again with the formula in it
  state.findings = new Map(); // and audits again: a write can change values any sheet compares
  if (state.sheet.name !== sheet) return;
  const value = done.error || (done.value ?? shown);
  const old = state.cells.get(`${row},${col}`) || { row, col, number_format: "General", bold: false };
  state.cells.set(`${row},${col}`, { ...old, a1: done.cell, formula: done.formula, value, accepted: true });
  status(`${sheet}!${done.cell} ${done.formula} accepted (${display({ value, number_format: "General" })}); download to keep it.`);
  state.tiles = new Set(); // cells that depend on this one have new values: fetch again as seen
  render();
  if (state.colour) loadTypes();
  if (state.flag) loadFindings();
}

// ---- cell types ----------------------------------------------------------------------------

async function loadTypes() {
  const sheet = state.sheet.name;
  if (!state.types.has(sheet)) {
    let data;
    try {
      data = await api("GET", `/workbooks/${state.book.id}/sheets/${encodeURIComponent(sheet)}/types`);
    } catch (err) {
      status(err.message, true);
      $("types").checked = state.colour = false;
      render();
      return;
    }
    const colours = Object.fromEntries(data.legend.map((t) => [t.type, t.colour]));
    const cells = new Map(data.cells.map((c) => [c.cell, c]));
    state.types.set(sheet, { colours, cells, legend: data.legend, model: data.model });
  }
  if (!state.colour || state.sheet.name !== sheet) return;
  drawLegend(state.types.get(sheet));
  render();
}

function drawLegend(typed) {
  const legend = $("legend");
  legend.hidden = !typed;
  if (!typed) return;
  const items = typed.legend.map((t) => {
    const span = document.createElement("span");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = t.colour;
    span.append(swatch, ` ${t.type.replace("_", " ")}`);
    return span;
  });
  const by = document.createElement("span");
  by.className = "hint";
  by.textContent = `typed by ${typed.model}`;
  legend.replaceChildren(...items, by);
}

// ---- questions -----------------------------------------------------------------------------

async function askQuestion() {
  const question = $("ask-q").value.trim();
  if (!question || !state.sheet) return;
  clearAnswer();
  const id = ++state.asked;
  const sheet = state.sheet.name;
  $("ask-answer").textContent = "Thinking… (the first question loads the model)";
  let data;
  try {
    data = await api("POST", `/workbooks/${state.book.id}/ask`, { sheet, question });
  } catch (err) {
    if (id !== state.asked) return;
    $("ask-answer").textContent = err.message;
    $("ask-answer").classList.add("error");
    return;
  }
  if (id !== state.asked || state.sheet.name !== sheet) return;
  const values = (data.answer || []).map((v) => display({ value: v, number_format: "General" }));
  $("ask-answer").textContent = `${values.join(", ") || "no answer"} · ${data.operation}`;
  $("ask-answer").title = data.cells.map((c) => `${c.ref} = ${c.value}  [${c.headers}]`).join("\n");
  $("ask-formula").textContent = data.formula || "";
  state.answer = { sheet, refs: new Set(data.cells.map((c) => c.ref)), formula: data.formula };
  if (data.formula) {
    $("ask-put").hidden = false;
    $("ask-cell").value = a1(state.sel.row, state.sel.col);
  }
  render();
}

function clearAnswer() {
  state.asked++;
  state.answer = null;
  $("ask-answer").textContent = "";
  $("ask-answer").title = "";
  $("ask-answer").classList.remove("error");
  $("ask-formula").textContent = "";
  $("ask-put").hidden = true;
}

function putAnswer() {
  const answer = state.answer;
  const text = $("ask-cell").value.trim().toUpperCase().replace(/\$/g, "");
  if (!answer || !answer.formula) return;
  if (!/^[A-Z]{1,3}[1-9][0-9]*$/.test(text)) {
    status(`"${text}" is not a cell: type one such as H2, or click it in the grid`, true);
    return;
  }
  const { row, col } = parseA1(text);
  writeFormula(answer.sheet, row, col, answer.formula);
}
