// The findings toggle: the open sheet audited by the server (GET .../findings, `fortap audit`'s
// own checks), each flagged cell outlined in its kind's colour with the kind, score and evidence
// as its tooltip; clicking it opens a panel whose button writes the fix into the cell through
// writeFormula (POST /workbooks/{id}/cells with the page's token, as accepting a suggestion).
// Loaded after app.js, whose state, api, render, select and writeFormula it uses.
"use strict";

const KIND_NAMES = { "missing-formula": "Missing formula", "inconsistent-formula": "Inconsistent formula" };
const kindName = (kind) => KIND_NAMES[kind] || kind;

async function loadFindings() {
  const sheet = state.sheet.name;
  if (!state.findings.has(sheet)) {
    $("flag-legend").hidden = false;
    $("flag-legend").textContent = `Auditing ${sheet}…`;
    let data;
    try {
      data = await api("GET", `/workbooks/${state.book.id}/sheets/${encodeURIComponent(sheet)}/findings`);
    } catch (err) {
      status(err.message, true);
      $("flags").checked = state.flag = false;
      drawFlagLegend(null);
      render();
      return;
    }
    const colours = Object.fromEntries(data.legend.map((k) => [k.kind, k.colour]));
    const cells = new Map(data.findings.map((f) => [f.cell, f]));
    state.findings.set(sheet, { colours, cells, list: data.findings, legend: data.legend, data });
  }
  if (!state.flag || state.sheet.name !== sheet) return; // toggled off or moved on meanwhile
  drawFlagLegend(state.findings.get(sheet));
  render();
}

// Called by cellDiv for every cell drawn while the toggle is on.
function markFinding(el) {
  const audited = state.findings.get(state.sheet.name);
  const f = audited && audited.cells.get(el.dataset.a1);
  if (!f) return;
  el.classList.add("flag");
  el.dataset.finding = f.kind;
  el.style.setProperty("--flag", audited.colours[f.kind]);
  el.title = [el.title, `${kindName(f.kind)} (score ${f.score.toFixed(2)}): ${f.evidence}`].filter(Boolean).join(" · ");
}

function drawFlagLegend(audited) {
  const legend = $("flag-legend");
  legend.hidden = !audited;
  if (!audited) return;
  const items = audited.legend.map((k) => {
    const span = document.createElement("span");
    const swatch = document.createElement("span");
    swatch.className = "swatch flag";
    swatch.style.setProperty("--flag", k.colour);
    const count = audited.list.filter((f) => f.kind === k.kind).length;
    span.append(swatch, ` ${kindName(k.kind).toLowerCase()} (${count})`);
    return span;
  });
  const next = document.createElement("button");
  next.type = "button";
  next.className = "button";
  next.id = "flag-next";
  next.textContent = "Next finding";
  next.disabled = audited.list.length === 0;
  next.addEventListener("click", nextFinding);
  const d = audited.data, n = audited.list.length;
  const by = document.createElement("span");
  by.className = "hint";
  by.textContent = `${n} finding${n === 1 ? "" : "s"} by fortap audit · ` +
    `${d.checked} of ${d.typed_numbers} typed numbers checked`;
  legend.replaceChildren(...items, next, by);
}

// Select the next flagged cell after the selection (best score first, as the list comes).
function nextFinding() {
  const audited = state.findings.get(state.sheet.name);
  if (!audited || !audited.list.length) return;
  const here = audited.list.findIndex((f) => f.cell === a1(state.sel.row, state.sel.col));
  const f = audited.list[(here + 1) % audited.list.length];
  const { row, col } = parseA1(f.cell);
  closePanel();
  select(row, col);
  openFinding(row, col);
  grid.focus();
}

// Show the panel of the finding at (row, col); false when the cell holds none.
function openFinding(row, col) {
  const audited = state.findings.get(state.sheet.name);
  const f = audited && audited.cells.get(a1(row, col));
  if (!f) return false;
  const sheet = state.sheet.name;
  $("fd-kind").textContent = kindName(f.kind);
  $("fd-kind").style.setProperty("--flag", audited.colours[f.kind]);
  $("fd-cell").textContent = `${sheet}!${f.cell}`;
  $("fd-score").textContent = `score ${f.score.toFixed(2)}`;
  $("fd-evidence").textContent = f.evidence;
  $("fd-fix").textContent = f.fix || "no fix known: see the evidence";
  const apply = $("fd-apply");
  apply.hidden = !f.fix;
  apply.onclick = () => {
    closePanel();
    grid.focus();
    writeFormula(sheet, row, col, f.fix);
  };
  $("finding").hidden = false;
  return true;
}

$("flags").addEventListener("change", (ev) => {
  state.flag = ev.target.checked;
  if (state.flag) loadFindings();
  else {
    drawFlagLegend(null);
    closePanel();
  }
  render();
});
