// fortap's Excel task pane. It follows the selected cell: reads the active sheet's used range
// (values, formulas, number formats), hashes it and asks the service for suggestions by hash
// (POST /addin/suggest); the sheet itself is sent only when the service does not hold that hash
// (POST /addin/sheets), so a selection change costs one small request. The chosen formula,
// a finding's fix and an answer's formula are written through Excel (range.formulas), so
// Excel recomputes them.
"use strict";

const TOKEN = document.querySelector('meta[name="fortap-token"]').content;
const $ = (id) => document.getElementById(id);
const state = { sheet: null, cell: null, id: null, sent: {}, answer: null, busy: null };

async function api(method, path, body) {
  const init = { method, headers: { "X-Fortap-Token": TOKEN } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const data = res.status === 204 ? null : await res.json();
  if (!res.ok) {
    const err = new Error((data && data.detail) || res.statusText);
    err.status = res.status;
    throw err;
  }
  return data;
}

function status(text) { $("status").textContent = text; }

function a1Of(address) {  // "Budget!$D$7:$D$7" -> "D7"
  return address.split("!").pop().split(":")[0].replace(/\$/g, "");
}

async function readSheet() {
  return Excel.run(async (ctx) => {
    const ws = ctx.workbook.worksheets.getActiveWorksheet();
    const selected = ctx.workbook.getSelectedRange();
    const used = ws.getUsedRange();
    ws.load("name");
    selected.load("address");
    used.load(["address", "values", "formulas", "numberFormat"]);
    await ctx.sync();
    return { sheet: ws.name, cell: a1Of(selected.address), address: used.address,
             values: used.values, formulas: used.formulas, formats: used.numberFormat };
  });
}

async function digest(grid) {
  const text = JSON.stringify([grid.sheet, grid.address, grid.values, grid.formulas, grid.formats]);
  if (window.crypto && crypto.subtle) {
    const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
    return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
  }
  let h1 = 0x811c9dc5, h2 = 0x01000193;  // no SubtleCrypto (plain http): two FNV-1a streams
  for (let i = 0; i < text.length; i++) {
    h1 = Math.imul(h1 ^ text.charCodeAt(i), 16777619) >>> 0;
    h2 = Math.imul(h2 ^ text.charCodeAt(i), 2246822519) >>> 0;
  }
  return h1.toString(16).padStart(8, "0") + h2.toString(16).padStart(8, "0");
}

async function send(grid, hash) {
  const out = await api("POST", "/addin/sheets", { hash, sheet: grid.sheet, address: grid.address,
    values: grid.values, formulas: grid.formulas, formats: grid.formats });
  state.sent[grid.sheet] = { hash, id: out.id };
  return out.id;
}

async function session() {  // the session of the sheet as it is now: sent when it changed
  const grid = await readSheet();
  const hash = await digest(grid);
  const held = state.sent[grid.sheet];
  state.sheet = grid.sheet;
  state.id = held && held.hash === hash ? held.id : await send(grid, hash);
  return grid;
}

let asked = 0;  // the latest selection's number: an older answer arriving late is dropped

async function follow() {
  const mine = ++asked;
  const grid = await readSheet();
  state.sheet = grid.sheet;
  state.cell = grid.cell;
  if (mine !== asked) return;
  $("cell").textContent = `${grid.sheet}!${grid.cell}`;
  if (!$("ask-cell").value) $("ask-cell").value = grid.cell;
  const hash = await digest(grid);
  const ask = { hash, sheet: grid.sheet, cell: grid.cell, k: 5 };
  let out;
  try {
    out = await api("POST", "/addin/suggest", ask);
  } catch (err) {
    if (err.status !== 404) throw err;
    await send(grid, hash);
    out = await api("POST", "/addin/suggest", ask);
  }
  state.sent[grid.sheet] = { hash, id: out.id };
  if (mine !== asked) return;
  state.id = out.id;
  showSuggestions(out);
}

function item(parts, onClick) {
  const li = document.createElement("li");
  for (const [cls, tag, text] of parts) {
    const el = document.createElement(tag);
    el.className = cls;
    el.textContent = text;
    li.appendChild(el);
  }
  if (onClick) li.addEventListener("click", onClick);
  return li;
}

function shown(value, error) { return error || (value === null ? "(empty)" : String(value)); }

function showSuggestions(out) {
  const list = $("suggestions");
  list.replaceChildren();
  out.suggestions.forEach((s, i) => {
    const li = item([["value", "span", shown(s.value, s.error)], ["", "code", s.formula],
                     ["reason", "span", s.reason]], () => insert(out.cell, s.formula));
    li.classList.toggle("hi", i === 0);
    li.title = "Insert this formula";
    list.appendChild(li);
  });
  status(out.suggestions.length ? `${out.suggestions.length} suggestions; click one to insert it`
                                 : "no suggestion for this cell");
}

async function write(cell, formula) {
  await Excel.run(async (ctx) => {
    const range = ctx.workbook.worksheets.getActiveWorksheet().getRange(cell);
    range.formulas = [[formula]];
    await ctx.sync();
  });
  status(`${state.sheet}!${cell} ${formula} written`);
}

async function insert(cell, formula) { await guarded(() => write(cell, formula)); }

async function goTo(cell) {
  await Excel.run(async (ctx) => {
    ctx.workbook.worksheets.getActiveWorksheet().getRange(cell).select();
    await ctx.sync();
  });
}

async function audit() {
  const grid = await session();
  const out = await api("GET", `/workbooks/${state.id}/sheets/${encodeURIComponent(grid.sheet)}/findings`);
  const list = $("findings");
  list.replaceChildren();
  for (const f of out.findings) {
    const li = item([["value", "span", `${f.cell} ${f.kind} (${f.score.toFixed(2)})`],
                     ["", "code", f.fix || "(no fix known)"], ["reason", "span", f.evidence]],
                    () => guarded(() => goTo(f.cell)));
    li.dataset.cell = f.cell;
    if (f.fix) {
      const apply = document.createElement("button");
      apply.type = "button";
      apply.textContent = "Apply fix";
      apply.addEventListener("click", (ev) => { ev.stopPropagation(); insert(f.cell, f.fix); });
      li.prepend(apply);
    }
    list.appendChild(li);
  }
  status(`${out.findings.length} finding${out.findings.length === 1 ? "" : "s"} on ${grid.sheet}`);
}

async function types(on) {
  const grid = await session();
  let out = null;
  if (on) out = await api("GET", `/workbooks/${state.id}/sheets/${encodeURIComponent(grid.sheet)}/types`);
  await Excel.run(async (ctx) => {
    const ws = ctx.workbook.worksheets.getActiveWorksheet();
    if (!on) { ws.getRange(grid.address.split("!").pop()).format.fill.clear(); }
    else {
      const colour = Object.fromEntries(out.legend.map((l) => [l.type, l.colour]));
      for (const c of out.cells) ws.getRange(c.cell).format.fill.color = colour[c.type];
    }
    await ctx.sync();
  });
  const legend = $("legend");
  legend.replaceChildren();
  legend.hidden = !on;
  if (on) {
    for (const l of out.legend) {
      const span = document.createElement("span");
      span.textContent = l.type;
      span.style.background = l.colour;
      legend.appendChild(span);
    }
  }
  status(on ? `${out.cells.length} cells coloured by type` : "cell colours cleared");
}

async function ask(question) {
  const grid = await session();
  const out = await api("POST", `/workbooks/${state.id}/ask`, { sheet: grid.sheet, question });
  state.answer = out;
  $("ask-answer").textContent = out.answer === null ? out.formula_note
    : `${out.answer.join(", ")} (${out.operation})`;
  $("ask-formula").textContent = out.formula || "";
  $("ask-write").disabled = !out.formula;
}

async function guarded(work) {
  try { await work(); }
  catch (err) { status(err.message || String(err)); }
}

let pending = null;
function onSelection() {  // selection events come in bursts: answer the last one
  clearTimeout(pending);
  pending = setTimeout(() => guarded(follow), 120);
}

window.fortapOffice.then((Office) => Office.onReady(async (info) => {
  if (info && info.host && String(info.host).toLowerCase() !== "excel") {
    status("This add-in runs in Excel."); return;
  }
  await Excel.run(async (ctx) => {
    ctx.workbook.worksheets.onSelectionChanged.add(onSelection);
    ctx.workbook.worksheets.onActivated.add(onSelection);
    await ctx.sync();
  });
  $("audit-btn").addEventListener("click", () => guarded(audit));
  $("types").addEventListener("change", (ev) => guarded(() => types(ev.target.checked)));
  $("ask").addEventListener("submit", (ev) => { ev.preventDefault(); guarded(() => ask($("ask-q").value)); });
  $("ask-write").addEventListener("click", () =>
    guarded(() => write($("ask-cell").value.trim().toUpperCase(), state.answer.formula)));
  await guarded(follow);
})).catch((err) => status(err.message));
