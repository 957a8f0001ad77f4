// The Recover formulas panel: the server puts formulas back where the open sheet holds only their
// values (POST .../recover, `fortap recover`'s own search, nothing written) and the panel lists
// them, each with its cell, formula, score and evidence, their cells outlined in the grid.
// "Accept" writes one and "Accept all" every one (POST .../recover/accept with the page's token,
// which answers how many are left when a sheet has more than one request writes); accepted cells
// are marked as accepted suggestions are. Loaded after app.js, whose state, api, render, select,
// status, closePanel, loadTypes and loadFindings it uses.
"use strict";

async function recoverFormulas() {
  if (!state.sheet) return;
  const sheet = state.sheet.name;
  const minScore = Number($("rc-min").value);
  closePanel();
  const id = ++state.recovering;
  $("recover").hidden = false;
  $("rc-sheet").textContent = sheet;
  rcSummary(`Recovering formulas on ${sheet}…`);
  $("rc-list").replaceChildren();
  $("rc-all").disabled = true;
  let data;
  try {
    data = await api("POST", `/workbooks/${state.book.id}/recover`, { sheet, min_score: minScore });
  } catch (err) {
    if (id === state.recovering) rcSummary(err.message, true);
    return;
  }
  if (id !== state.recovering || state.sheet.name !== sheet) return; // closed or moved on
  const list = data.recovered.map((f) => ({ ...f, accepted: false }));
  state.recover = { sheet, minScore: data.min_score, typed: data.typed_numbers, list,
    cells: new Map(list.map((f) => [f.cell, f])) };
  drawRecovered();
  render();
}

function rcSummary(text, error = false) {
  $("rc-summary").textContent = text;
  $("rc-summary").classList.toggle("error", error);
}

// Hide the panel and its outlines; an answer still on its way is dropped. closePanel calls it.
function closeRecover() {
  state.recovering++;
  const shown = state.recover !== null;
  state.recover = null;
  $("recover").hidden = true;
  if (shown) render();
}

function drawRecovered() {
  const rc = state.recover;
  const n = rc.list.length, open = rc.list.filter((f) => !f.accepted).length;
  rcSummary(n
    ? `${n} formula${n === 1 ? "" : "s"} give${n === 1 ? "s" : ""} exactly the value typed in ` +
      `${n === 1 ? "its cell" : "their cells"} (score ≥ ${rc.minScore}, of ${rc.typed} typed numbers)`
    : `No formula to put back among ${rc.typed} typed numbers at score ≥ ${rc.minScore}.`);
  const all = $("rc-all");
  all.disabled = open === 0;
  all.textContent = open ? `Accept all (${open})` : "Accept all";
  const items = rc.list.map((f) => {
    const li = document.createElement("li");
    li.dataset.cell = f.cell;
    li.className = f.accepted ? "done" : "";
    const cell = document.createElement("code");
    cell.className = "cell";
    cell.textContent = f.cell;
    const formula = document.createElement("code");
    formula.className = "formula";
    formula.textContent = f.formula;
    const score = document.createElement("span");
    score.className = "score";
    score.textContent = f.score.toFixed(2);
    const why = document.createElement("span");
    why.className = "reason";
    why.textContent = `${f.evidence} · ${f.family}`;
    let act;
    if (f.accepted) {
      act = document.createElement("span");
      act.className = "accepted";
      act.textContent = "accepted";
    } else {
      act = document.createElement("button");
      act.type = "button";
      act.className = "button rc-accept";
      act.textContent = "Accept";
      act.addEventListener("click", (ev) => {
        ev.stopPropagation();
        acceptRecovered([f.cell]);
      });
    }
    li.append(score, cell, formula, act, why);
    li.addEventListener("click", () => {
      const { row, col } = parseA1(f.cell);
      select(row, col);
    });
    return li;
  });
  $("rc-list").replaceChildren(...items);
}

// Called by cellDiv for every cell drawn while the panel shows.
function markRecovered(el) {
  const rc = state.recover;
  const f = rc.sheet === state.sheet.name && rc.cells.get(el.dataset.a1);
  if (!f || f.accepted) return;
  el.classList.add("rec");
  el.title = [el.title, `Recovered: ${f.formula} (score ${f.score.toFixed(2)}): ${f.evidence}`].filter(Boolean).join(" · ");
}

// Accept the recovered formulas of `cells`, or all of them (null), in as many requests as the
// server asks for.
async function acceptRecovered(cells) {
  const rc = state.recover;
  if (!rc) return;
  const { sheet, minScore } = rc;
  const book = state.book;
  $("rc-all").disabled = true;
  let count = 0;
  for (;;) {
    status(`Accepting recovered formulas on ${sheet}…${count ? ` (${count} so far)` : ""}`);
    let data;
    try {
      data = await api("POST", `/workbooks/${book.id}/recover/accept`, { sheet, min_score: minScore, cells });
    } catch (err) {
      status(err.message, true);
      if (state.recover === rc) drawRecovered();
      return;
    }
    if (state.book !== book) return; // another workbook was opened meanwhile
    count += data.written.length;
    markAccepted(sheet, data.written);
    if (!data.left || !data.written.length) break;
  }
  const one = count === 1 && cells ? `${sheet}!${cells[0]} ${rc.cells.get(cells[0]).formula} accepted` : "";
  status(one ? `${one}; download to keep it.`
    : `${count} recovered formula${count === 1 ? "" : "s"} accepted on ${sheet}; download to keep them.`);
}

// The cells written, marked accepted in the grid and the panel, as writeFormula marks one.
function markAccepted(sheet, written) {
  if (!written.length) return;
  state.unsaved = true;
  state.types.delete(sheet); // the server types the sheet again with the formulas in it
  state.findings = new Map(); // and audits again
  const rc = state.recover && state.recover.sheet === sheet ? state.recover : null;
  for (const w of written) {
    if (rc && rc.cells.has(w.cell)) rc.cells.get(w.cell).accepted = true;
    if (state.sheet.name !== sheet) continue;
    const { row, col } = parseA1(w.cell);
    const old = state.cells.get(`${row},${col}`) || { row, col, number_format: "General", bold: false };
    state.cells.set(`${row},${col}`, { ...old, a1: w.cell, formula: w.formula, value: w.error || w.value, accepted: true });
  }
  if (rc && state.recover === rc) drawRecovered();
  render();
  if (state.colour) loadTypes();
  if (state.flag) loadFindings();
}

$("recover-btn").addEventListener("click", recoverFormulas);
$("rc-again").addEventListener("click", recoverFormulas);
$("rc-all").addEventListener("click", () => acceptRecovered(null));
$("rc-min").addEventListener("keydown", (ev) => {
  if (ev.key === "Enter") recoverFormulas();
});
