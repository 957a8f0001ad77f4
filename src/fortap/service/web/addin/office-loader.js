// Office.js: Microsoft's copy, as Office expects inside Excel; fortap's own (npm's
// @microsoft/office-js, served at /addin/office-js/) when that cannot load (offline). A host
// that already provides `Office` (a test's office-addin-mock) is used as it is.
"use strict";
window.fortapOffice = new Promise((resolve, reject) => {
  if (window.Office) { resolve(window.Office); return; }
  const sources = ["https://appsforoffice.microsoft.com/lib/1/hosted/office.js", "/addin/office-js/office.js"];
  const next = () => {
    const src = sources.shift();
    if (!src) { reject(new Error("Office.js could not be loaded")); return; }
    const script = document.createElement("script");
    script.src = src;
    script.onload = () => resolve(window.Office);
    script.onerror = () => { script.remove(); next(); };
    document.head.appendChild(script);
  };
  next();
});
