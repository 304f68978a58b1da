// nl2fix view: filtering, sorting and keyboard navigation. Served by nl2fix (no CDN), works from file:// too.
(function () {
  "use strict";
  const page = document.body.dataset.page;
  const typing = (e) => /^(INPUT|SELECT|TEXTAREA)$/.test(e.target.tagName) || e.ctrlKey || e.metaKey || e.altKey;
  // A raw log quotes what candidates printed: each hidden character (control, escape sequence, bidirectional or
  // invisible format character; as nl2fix.core.visible_text) is shown as its escape in a marked span, so the
  // browser neither reorders nor hides text around it.
  const HIDDEN = /\r(?!\n)|(?![\n\t\r])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u034F\u115F\u1160\u180B-\u180F\u3164\uFE00-\uFE0F\uFFA0\u{E0100}-\u{E01EF}]/gu;
  const escapeChar = (c) => {
    const n = c.codePointAt(0); const h = n.toString(16);
    return n < 0x100 ? "\\x" + h.padStart(2, "0") : n <= 0xffff ? "\\u" + h.padStart(4, "0") : "\\U" + h.padStart(8, "0");
  };
  const showText = (box, text) => {
    box.textContent = "";
    let last = 0;
    for (const m of text.matchAll(HIDDEN)) {
      const mark = document.createElement("span"); mark.className = "hidden-char"; mark.textContent = escapeChar(m[0]);
      box.append(text.slice(last, m.index), mark);
      last = m.index + m[0].length;
    }
    box.append(text.slice(last));
  };
  const follow = (id) => { const a = document.getElementById(id); if (a) { window.location.href = a.href; } };

  // -- tables of bugs (a run, a comparison): filters kept in the URL's fragment, sorting, j/k/Enter ----------
  const table = document.getElementById("bugs");
  if (table) {
    const rows = Array.from(table.tBodies[0].rows);
    const filters = Array.from(document.querySelectorAll(".filters select, .filters input"));
    const shown = document.getElementById("shown");
    let current = -1;

    const visible = () => rows.filter((r) => !r.hidden);
    const apply = () => {
      const values = {};
      filters.forEach((f) => { values[f.id] = f.value.trim().toLowerCase(); });
      rows.forEach((r) => {
        const d = r.dataset;
        r.hidden = !((!values.search || d.search.includes(values.search))
          && (!values["f-project"] || d.project.toLowerCase() === values["f-project"])
          && (!values["f-fixed"] || d.fixed === values["f-fixed"])
          && (!values["f-flag"] || d.flags.split(" ").includes(values["f-flag"]))
          && (!values["f-category"] || d.category.toLowerCase() === values["f-category"])
          && (!values["f-model"] || d.models.split(" ").includes(values["f-model"]))
          && (!values["f-published"] || d.published === values["f-published"]));
      });
      shown.textContent = visible().length + " of " + rows.length + " bugs";
      const state = filters.filter((f) => f.value).map((f) => f.id + "=" + encodeURIComponent(f.value)).join("&");
      history.replaceState(null, "", state ? "#" + state : window.location.pathname + window.location.search);
      select(-1);
    };
    const select = (i) => {
      const list = visible();
      rows.forEach((r) => r.classList.remove("selected"));
      current = Math.max(-1, Math.min(i, list.length - 1));
      if (current >= 0) { list[current].classList.add("selected"); list[current].focus(); }
    };
    new URLSearchParams(window.location.hash.slice(1)).forEach((value, key) => {
      const f = document.getElementById(key); if (f) { f.value = value; }
    });
    filters.forEach((f) => { f.addEventListener("input", apply); f.addEventListener("change", apply); });
    apply();

    Array.from(table.tHead.rows[0].cells).forEach((th, col) => {
      th.addEventListener("click", () => {
        const numeric = th.dataset.type === "num";
        const dir = th.classList.contains("asc") ? -1 : 1;
        Array.from(th.parentNode.cells).forEach((c) => c.classList.remove("asc", "desc"));
        th.classList.add(dir === 1 ? "asc" : "desc");
        const key = (r) => { const c = r.cells[col]; const v = c.dataset.sort !== undefined ? c.dataset.sort : c.textContent.trim(); return numeric ? parseFloat(v) : v; };
        // text in natural order (Cli-2 before Cli-10); the sort is stable, so ties keep their order
        const order = numeric ? (x, y) => x - y : (x, y) => x.localeCompare(y, undefined, { numeric: true, sensitivity: "base" });
        rows.sort((a, b) => order(key(a), key(b)) * dir);
        rows.forEach((r) => table.tBodies[0].appendChild(r));
        select(-1);
      });
    });
    document.addEventListener("keydown", (e) => {
      if (e.key === "/" && !typing(e)) { e.preventDefault(); document.getElementById("search").focus(); return; }
      if (e.key === "Escape" && e.target.id === "search") { e.target.blur(); return; }
      if (typing(e)) { return; }
      if (e.key === "j" || e.key === "ArrowDown") { e.preventDefault(); select(current + 1); }
      else if (e.key === "k" || e.key === "ArrowUp") { e.preventDefault(); select(current - 1); }
      else if ((e.key === "Enter" || e.key === "o") && current >= 0) {
        const link = visible()[current].querySelector("a.bug-link"); if (link) { window.location.href = link.href; }
      }
    });
  }

  // -- the runs page: compare the chosen runs --------------------------------------------------------------
  const form = document.getElementById("compare-form");
  if (form) {
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const ids = Array.from(form.querySelectorAll("input[name=run]:checked")).map((c) => c.value);
      if (ids.length < 2) { alert("Choose two or more runs to compare."); return; }
      window.location.href = "compare/" + ids.join("~") + "/index.html";
    });
  }

  // -- a bug's page: candidates by anchor, open/close all, raw logs, keys to the next and previous bug ---------
  if (page === "bug") {
    const candidates = Array.from(document.querySelectorAll("details.candidate"));
    const openAnchor = () => {
      const id = decodeURIComponent(window.location.hash.slice(1));
      const target = id && document.getElementById(id);
      if (target && target.tagName === "DETAILS") { target.open = true; target.scrollIntoView(); }
    };
    window.addEventListener("hashchange", openAnchor);
    openAnchor();
    const toggle = document.getElementById("toggle-all");
    const toggleAll = () => {
      const open = !candidates.every((d) => d.open);
      candidates.forEach((d) => { d.open = open; });
      if (toggle) { toggle.textContent = open ? "close all" : "open all"; }
    };
    if (toggle) { toggle.addEventListener("click", toggleAll); }
    document.querySelectorAll("details.rawlog").forEach((fold) => {
      fold.addEventListener("toggle", () => {
        const box = fold.querySelector(".log-contents");
        if (!fold.open || !box || box.dataset.loaded || window.location.protocol === "file:") { return; }
        box.dataset.loaded = "1";
        // Placeholders first, so the files show in the order they are listed whatever order they arrive in.
        fold.querySelectorAll("a.log-file").forEach((a) => {
          const title = document.createElement("h5"); title.textContent = a.textContent;
          const pre = document.createElement("pre"); pre.className = "log"; pre.textContent = "loading…";
          box.append(title, pre);
          fetch(a.href).then((r) => (r.ok ? r.text() : Promise.reject(new Error(`${r.status} ${r.statusText}`))))
            .then((text) => { showText(pre, text); })
            .catch((err) => { pre.textContent = `could not load ${a.textContent}: ${err.message}`; })
            .finally(() => { pre.dataset.loaded = "1"; });
        });
      });
    });
    document.addEventListener("keydown", (e) => {
      if (typing(e)) { return; }
      if (e.key === "j" || e.key === "ArrowRight") { follow("next"); }
      else if (e.key === "k" || e.key === "ArrowLeft") { follow("prev"); }
      else if (e.key === "u") { follow("up"); }
      else if (e.key === "e") { toggleAll(); }
    });
  }
}());
