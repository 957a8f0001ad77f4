// A mocked Excel for the task pane's browser test, built on office-addin-mock's OfficeMockObject
// (which `test_taskpane.py` loads first as `window.__officeAddinMock`): every range is a mock
// whose properties read as errors until loaded and synced, as in Office.js. The workbook is
// `window.__fortapSheets` ({sheet: {cells: {A1: {v, f, fmt}}, rows, cols}}); formulas written
// through `range.formulas` land in it at `sync` and are listed in `window.__writes`;
// `window.__select(sheet, a1)` moves the selection and fires onSelectionChanged.
(function () {
  "use strict";
  const { OfficeMockObject } = window.__officeAddinMock;
  const sheets = window.__fortapSheets;
  const writes = (window.__writes = []);
  const selectHandlers = [];
  let active = Object.keys(sheets)[0];
  let selected = "A1";

  const colName = (c) => { let s = ""; for (c += 1; c > 0; c = Math.floor((c - 1) / 26)) s = String.fromCharCode(65 + ((c - 1) % 26)) + s; return s; };
  function grid(name) {
    const s = sheets[name], values = [], formulas = [], formats = [];
    for (let r = 0; r < s.rows; r++) {
      const vr = [], fr = [], nr = [];
      for (let c = 0; c < s.cols; c++) {
        const cell = s.cells[colName(c) + (r + 1)] || {};
        vr.push(cell.v === undefined ? "" : cell.v);
        fr.push(cell.f !== undefined ? cell.f : (cell.v === undefined ? "" : cell.v));
        nr.push(cell.fmt || "General");
      }
      values.push(vr); formulas.push(fr); formats.push(nr);
    }
    return { values, formulas, formats, address: `${name}!A1:${colName(s.cols - 1)}${s.rows}` };
  }

  function newContext() {
    const ranges = [];
    function range(name, a1) {
      const g = name && a1 === undefined ? grid(name) : null;
      const cell = a1 !== undefined ? sheets[name].cells[a1] || {} : null;
      const data = g
        ? { address: g.address, values: g.values, formulas: g.formulas, numberFormat: g.numberFormat || g.formats }
        : { address: `${name}!${a1}`, values: [[cell.v ?? ""]], formulas: [[cell.f ?? cell.v ?? ""]], numberFormat: [[cell.fmt || "General"]] };
      data.format = { fill: { color: "" } };
      const mock = new OfficeMockObject(data);
      mock.format.fill.clear = () => {};
      mock.select = () => { mock.__select = true; };
      mock.__sheet = name; mock.__a1 = a1; mock.__formulas = data.formulas;
      ranges.push(mock);
      return mock;
    }
    const worksheet = () => new OfficeMockObject({
      name: active,
      getUsedRange: () => range(active),
      getRange: (a1) => range(active, a1.replace(/\$/g, "")),
    });
    const ctx = new OfficeMockObject({
      workbook: {
        worksheets: {
          getActiveWorksheet: () => { const ws = worksheet(); ranges.push(ws); return ws; },
          onSelectionChanged: { add: (h) => selectHandlers.push(h) },
          onActivated: { add: () => {} },
        },
        getSelectedRange: () => range(active, selected),
      },
    });
    ctx.sync = async () => {
      for (const m of ranges) await m.sync();
      await Promise.resolve();
      for (const m of ranges) {
        // a formula written: an array the pane set, not the one the mock was made with
        if (m.__a1 !== undefined && Array.isArray(m.formulas) && m.formulas !== m.__formulas) {
          const f = m.formulas[0][0];
          sheets[m.__sheet].cells[m.__a1] = { f, v: 0 };
          writes.push({ sheet: m.__sheet, cell: m.__a1, formula: f });
          m.__formulas = m.formulas;
        }
        if (m.__select) { m.__select = false; window.__select(m.__sheet, m.__a1); }
      }
    };
    return ctx;
  }

  window.__select = (sheet, a1) => {
    active = sheet; selected = a1;
    for (const h of selectHandlers) h({ address: a1, worksheetId: sheet });
  };
  window.__selected = () => `${active}!${selected}`;
  window.Excel = { run: async (work) => work(newContext()) };
  window.Office = { onReady: (cb) => Promise.resolve({ host: "Excel" }).then(async (info) => { if (cb) await cb(info); return info; }) };
})();
