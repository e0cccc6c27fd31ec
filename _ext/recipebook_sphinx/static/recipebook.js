/* Recipe explorer: copy buttons, the selection in the URL fragment, placeholder values.
   Everything works without this file: it adds copying, deep links and filling in values.

   Text this script did not write is checked where it is used: the URL fragment (each part
   decoded and validated on its own; anything else is ignored and said so), and the values
   localStorage holds (RecipeFiles.checkedValues, the one check of a placeholder's value, on
   every read, so a value stored by another script or an older page never reaches a
   command). */
(function () {
  "use strict";

  var STORE = "rb-placeholders";
  var MAX_FRAGMENT = 2048;  // a longer fragment is not read at all

  function say(text, fill) {
    var strings = window.RB_STRINGS || {};
    var out = Object.prototype.hasOwnProperty.call(strings, text) ? String(strings[text]) : text;
    Object.keys(fill || {}).forEach(function (key) { out = out.split("{" + key + "}").join(fill[key]); });
    return out;
  }

  function files() { return window.RecipeFiles; }

  // ---- the selection -------------------------------------------------------------

  function gridState(grid) {
    var params = new URLSearchParams();
    params.set("s", grid.dataset.strategy);
    params.set("t", grid.dataset.target);
    grid.querySelectorAll("input[data-axis]").forEach(function (input) {
      if (input.type === "checkbox") {
        params.set(input.dataset.axis, input.checked ? "on" : "off");
      } else if (input.checked) {
        params.set(input.dataset.axis, input.value);
      }
    });
    return params;
  }

  function remember(grid) {
    history.replaceState(null, "", "#" + gridState(grid).toString());
    pointReport(grid);
    offerNearest(grid);
  }

  function showTab(element) {
    // open every sphinx-design tab that contains the element
    for (var node = element; node; node = node.parentElement) {
      if (node.classList && node.classList.contains("sd-tab-content")) {
        var label = node.previousElementSibling;  // sphinx-design: input, label, panel
        var input = label && label.htmlFor && document.getElementById(label.htmlFor);
        if (input) { input.checked = true; }
      }
    }
  }

  // The choices a grid offers: axis -> values (a checkbox is off/on)
  function axisValues(grid) {
    var axes = {};
    grid.querySelectorAll("input[data-axis]").forEach(function (input) {
      var list = axes[input.dataset.axis] || (axes[input.dataset.axis] = []);
      if (input.type === "checkbox") { list.push("off", "on"); } else { list.push(input.value); }
    });
    return axes;
  }

  // The fragment as [key, value, raw part] pairs; parts that do not decode are set aside
  function readFragment(hash) {
    var text = hash.charAt(0) === "#" ? hash.slice(1) : hash;
    if (text.length > MAX_FRAGMENT) { return { tooLong: true, pairs: [], bad: [] }; }
    var pairs = [];
    var bad = [];
    text.split("&").forEach(function (part) {
      if (!part) { return; }
      var eq = part.indexOf("=");
      if (eq < 1) { bad.push(part); return; }
      try {
        pairs.push([decodeURIComponent(part.slice(0, eq).replace(/\+/g, " ")),
          decodeURIComponent(part.slice(eq + 1).replace(/\+/g, " ")), part]);
      } catch (error) { bad.push(part); }
    });
    return { tooLong: false, pairs: pairs, bad: bad };
  }

  function shorten(text) { return text.length > 60 ? text.slice(0, 57) + "…" : text; }

  function note(grid, text) {
    var box = grid.querySelector(".rb-linknote");
    if (!box) {
      box = document.createElement("p");
      box.className = "rb-linknote";
      box.setAttribute("role", "status");
      grid.insertBefore(box, grid.firstChild);
    }
    box.textContent = text;
    box.hidden = !text;
  }

  // A deep link (#s=STRATEGY&t=TARGET&AXIS=VALUE...) opens its tab and selection; any part that
  // is malformed or names no choice of that explorer is ignored, and the page says which.
  function restore() {
    if (location.hash.indexOf("#s=") !== 0) { return null; }
    var read = readFragment(location.hash);
    var grids = Array.prototype.slice.call(document.querySelectorAll("form.rb-grid"));
    if (read.tooLong) {
      history.replaceState(null, "", location.pathname + location.search);
      if (grids[0]) { note(grids[0], say("The link was too long to read; the page shows its first selection.")); }
      return null;
    }
    var wanted = {};
    read.pairs.forEach(function (pair) { if (pair[0] === "s" || pair[0] === "t") { wanted[pair[0]] = pair[1]; } });
    var grid = grids.filter(function (g) {
      return g.dataset.strategy === wanted.s && g.dataset.target === wanted.t;
    })[0];
    if (!grid) {
      // no such explorer: the fragment is not this page's; leave the page as it is
      if (grids[0]) { note(grids[0], say("The link names a strategy or target this page does not have; it was ignored.")); }
      history.replaceState(null, "", location.pathname + location.search);
      return null;
    }
    showTab(grid);
    var axes = axisValues(grid);
    var ignored = read.bad.slice();
    var seen = {};
    read.pairs.forEach(function (pair) {
      var axis = pair[0];
      var value = pair[1];
      if (axis === "s" || axis === "t") { return; }
      if (!Object.prototype.hasOwnProperty.call(axes, axis) || axes[axis].indexOf(value) < 0 || seen[axis]) {
        ignored.push(pair[2]);
        return;
      }
      seen[axis] = true;
      grid.querySelectorAll("input[data-axis]").forEach(function (input) {
        if (input.dataset.axis !== axis) { return; }
        if (input.type === "checkbox") { input.checked = value === "on"; }
        else if (input.value === value) { input.checked = true; }
      });
    });
    note(grid, ignored.length ? say("Ignored from the link: {parts}", { parts: ignored.map(shorten).join(", ") }) : "");
    remember(grid);  // the URL now names the selection shown
    return grid;
  }

  // Bring the explorer (its strategy tabs, then the chosen target's selectors) into view, and
  // keep it there while the page above it still changes size (fonts, images, tabs), until the
  // reader scrolls or types.
  function land(grid) {
    var target = grid.closest(".rb-strategies") || grid;
    var stop = false;
    // at once: the theme scrolls smoothly, and an animation would still be under way when the
    // page is read (or when the next check comes)
    var go = function () { if (!stop) { target.scrollIntoView({ block: "start", behavior: "instant" }); } };
    var quit = function () { stop = true; };
    ["wheel", "touchstart", "keydown", "mousedown"].forEach(function (name) {
      window.addEventListener(name, quit, { once: true, passive: true });
    });
    go();
    var settled = document.fonts && document.fonts.ready ? document.fonts.ready : Promise.resolve();
    settled.then(function () { requestAnimationFrame(function () { requestAnimationFrame(go); }); });
    window.addEventListener("load", function () { requestAnimationFrame(go); }, { once: true });
    if (window.ResizeObserver) {
      var observer = new ResizeObserver(function () { requestAnimationFrame(go); });
      observer.observe(document.body);
      observer.observe(target);
      setTimeout(function () { observer.disconnect(); stop = true; }, 4000);
    }
  }

  // A strategy or target tab click puts that tab's explorer into the URL.
  function followTabs() {
    document.querySelectorAll(".sd-tab-set > input").forEach(function (input) {
      input.addEventListener("change", function () {
        var panel = input.nextElementSibling && input.nextElementSibling.nextElementSibling;
        if (!panel) { return; }
        var grid = Array.prototype.find.call(panel.querySelectorAll("form.rb-grid"), function (g) {
          return g.offsetParent !== null;
        });
        if (grid) { remember(grid); }
      });
    });
  }

  // ---- placeholder values (localStorage "rb-placeholders": {"POD_IP@1": "10.0.0.5", ...}) ----

  var dropped = [];  // stored keys refused on the last read, reported once in each panel

  function loadValues() {
    var raw = {};
    try { raw = JSON.parse(localStorage.getItem(STORE) || "{}"); } catch (error) { raw = {}; }
    var checked = files().checkedValues(raw);
    dropped = checked.dropped;
    return checked.values;
  }

  function saveValues(values) {
    try { localStorage.setItem(STORE, JSON.stringify(values)); } catch (error) { /* private mode: this page only */ }
  }

  function problemText(name, value) {
    var why = files().valueProblem(name, value);
    if (why === "plain") {
      return say("Use letters, digits and . - _ : / only: quotes, spaces, $, backquotes and other shell characters would change the command.");
    }
    if (why === "host") { return say("Enter a host name or an IPv4 address, such as 10.0.0.5."); }
    if (why === "port") { return say("Enter a port: a whole number from 1 to 65535, such as 8000."); }
    return "";
  }

  // Which placeholders a grid asks for per node (each node fills in its own value)
  function perNode(grid) {
    var names = {};
    grid.querySelectorAll(".rb-ph-notes dt code[data-node]").forEach(function (code) { names[code.dataset.ph] = true; });
    return names;
  }

  // Which placeholders a grid fills from a node placeholder on the head of a role that spans
  // nodes: name -> the node placeholder (the reader fills that one in, per node)
  function headOf(grid) {
    var names = {};
    grid.querySelectorAll(".rb-ph-notes dt code[data-of]").forEach(function (code) { names[code.dataset.ph] = code.dataset.of; });
    return names;
  }

  function applyValues() {
    var values = loadValues();
    document.querySelectorAll("form.rb-grid").forEach(function (grid) {
      var scoped = perNode(grid);
      var heads = headOf(grid);
      grid.querySelectorAll("pre .rb-ph").forEach(function (span) {
        if (!span.dataset.ph) { span.dataset.ph = span.textContent.slice(1, -1); }
        var name = span.dataset.ph;
        var pre = span.closest("pre");
        var node = pre && pre.dataset.node ? pre.dataset.node : null;
        var head = pre && pre.dataset.head ? pre.dataset.head : null;
        var value = scoped[name] ? (node ? values[name + "@" + node] : undefined) : values[name];
        if (Object.prototype.hasOwnProperty.call(heads, name)) { value = head ? values[heads[name] + "@" + head] : undefined; }
        span.textContent = value ? value : "<" + name + ">";
        span.classList.toggle("rb-filled", Boolean(value));
      });
      grid.dispatchEvent(new CustomEvent("rb-values"));
    });
  }

  function placeholderPanel(grid) {
    var notes = grid.querySelector(".rb-ph-notes");
    if (!notes) { return; }
    var panel = document.createElement("div");
    panel.className = "rb-phform";
    var message = document.createElement("p");
    message.className = "rb-phmsg";
    message.setAttribute("role", "status");
    var keys = [];
    var stored = loadValues();  // read once for the panel's fields
    // every refused field of the panel, a line per reason naming its fields: fixing one
    // leaves the others named
    var explain = function () {
      var reasons = [], fields = {};
      panel.querySelectorAll("input[aria-invalid=true]").forEach(function (field) {
        var why = problemText(field.dataset.name, field.value.trim());
        if (!fields[why]) { fields[why] = []; reasons.push(why); }
        fields[why].push(field.dataset.label);
      });
      message.textContent = reasons.map(function (why) { return fields[why].join(", ") + ": " + why; }).join("\n");
      message.classList.toggle("rb-bad", reasons.length > 0);
    };
    notes.querySelectorAll("dt code[data-ph]").forEach(function (code) {
      var name = code.dataset.ph;
      if (code.dataset.of) {
        // filled from another placeholder on the head node: said, not asked
        var said = document.createElement("div");
        said.className = "rb-phrow";
        var term = document.createElement("span");
        term.className = "rb-phname";
        term.textContent = code.textContent;
        var how = document.createElement("p");
        how.className = "rb-phdesc";
        how.textContent = code.closest("dt").nextElementSibling.textContent;
        said.appendChild(term);
        said.appendChild(how);
        panel.appendChild(said);
        return;
      }
      var key = code.dataset.node ? name + "@" + code.dataset.node : name;
      keys.push(key);
      var id = grid.id + "-ph-" + key.replace("@", "-");
      var row = document.createElement("div");
      row.className = "rb-phrow";
      var label = document.createElement("label");
      label.htmlFor = id;
      label.textContent = code.textContent;
      var input = document.createElement("input");
      input.type = "text";
      input.id = id;
      input.dataset.key = key;
      input.autocomplete = "off";
      input.spellcheck = false;
      input.value = stored[key] || "";
      input.dataset.name = name;
      input.dataset.label = code.textContent;
      input.addEventListener("change", function () {
        var value = input.value.trim();
        var values = loadValues();
        var why = value ? problemText(name, value) : "";
        if (why) {
          input.setAttribute("aria-invalid", "true");
          explain();
          return;
        }
        input.removeAttribute("aria-invalid");
        explain();
        if (value) { values[key] = value; } else { delete values[key]; }
        saveValues(values);
        syncPanels();
      });
      row.appendChild(label);
      row.appendChild(input);
      var about = code.closest("dt").nextElementSibling;  // the placeholder's description (dd)
      if (about) {
        var description = document.createElement("p");
        description.className = "rb-phdesc";
        description.textContent = about.textContent;
        row.appendChild(description);
      }
      panel.appendChild(row);
    });
    var clear = document.createElement("button");
    clear.type = "button";
    clear.className = "rb-phclear";
    clear.textContent = say("Clear the values");
    clear.addEventListener("click", function () {
      var values = loadValues();
      keys.forEach(function (key) { delete values[key]; });
      saveValues(values);
      message.textContent = "";
      message.classList.remove("rb-bad");
      panel.querySelectorAll("input").forEach(function (input) { input.removeAttribute("aria-invalid"); });
      syncPanels();
    });
    panel.appendChild(clear);
    panel.appendChild(message);
    notes.parentNode.insertBefore(panel, notes.nextSibling);
    reportDropped(grid, keys);
  }

  // Stored values that failed the check are not used; the panel says so once
  function reportDropped(grid, keys) {
    var mine = dropped.filter(function (key) { return keys.indexOf(key) >= 0 || keys.indexOf(key.split("@")[0]) >= 0; });
    var message = grid.querySelector(".rb-phmsg");
    if (!mine.length || !message) { return; }
    message.textContent = say("A stored value was not used, because it could change the command: {names}", {
      names: mine.map(function (key) { return "<" + key.split("@")[0] + ">" + (key.indexOf("@") > 0 ? "@" + key.split("@")[1] : ""); }).join(", "),
    });
    message.classList.add("rb-bad");
  }

  function syncPanels() {
    var values = loadValues();
    document.querySelectorAll(".rb-phform input[data-key]").forEach(function (input) {
      if (input.getAttribute("aria-invalid") !== "true") { input.value = values[input.dataset.key] || ""; }
    });
    applyValues();
  }

  // ---- copying, also where navigator.clipboard is missing (plain HTTP) ----
  function copyText(text, done, failed) {
    var fallback = function () {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.top = "-1000px";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (error) { ok = false; }
      document.body.removeChild(area);
      if (ok) { done(); } else { failed(); }
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, fallback);
    } else {
      fallback();
    }
  }

  function copy(button) {
    var pre = button.parentElement.querySelector("pre");
    // struck-through and screen-reader-only marks are not copied; the mark goes on the block
    // alone, so that the browser styles only the block again, not the whole grid (whose :has()
    // rules would all be matched again, at every copy)
    pre.classList.add("rb-copying");
    var text = pre.innerText.replace(/\n$/, "");  // live innerText skips the hidden lines
    pre.classList.remove("rb-copying");
    if (!button.dataset.label) { button.dataset.label = button.textContent; }
    var show = function (label, failed) {
      // keep the label once: a second click within the pause must not take "Copied!" for it
      clearTimeout(button.rbTimer);
      button.textContent = label;
      button.classList.toggle("rb-done", !failed);
      button.classList.toggle("rb-copy-failed", failed);
      button.rbTimer = setTimeout(function () {
        button.textContent = button.dataset.label;
        button.classList.remove("rb-done", "rb-copy-failed");
      }, failed ? 4000 : 1500);
    };
    copyText(text, function () { show(button.dataset.done, false); }, function () {
      // select the command so that Ctrl+C copies it
      var range = document.createRange();
      range.selectNodeContents(pre);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      show(say("Copying is blocked here: select the text and copy it yourself."), true);
    });
  }

  // ---- the report link and the nearest offered selection follow the selection ----
  function pairs(grid) {
    var state = gridState(grid);
    return (grid.dataset.axes || "").split(" ").filter(Boolean).map(function (axis) {
      return axis + "=" + state.get(axis);
    }).join(", ");
  }

  function pointReport(grid) {
    var link = grid.querySelector("a.rb-report-link");
    if (!link) { return; }
    var chosen = pairs(grid);
    var query = "title=" + encodeURIComponent(link.dataset.title.replace("{selection}", chosen)) +
      "&body=" + encodeURIComponent(link.dataset.body.replace("{selection}", chosen));
    link.href = link.dataset.base + "?" + query;
  }

  // The selection as value indices, in the grid's axis order
  function chosenIndex(grid) {
    var state = gridState(grid);
    var axes = axisValues(grid);
    return (grid.dataset.axes || "").split(" ").filter(Boolean).map(function (axis) {
      return axes[axis].indexOf(state.get(axis));
    });
  }

  // The offered selection nearest to `chosen` (value indices in axis order; sizes: each axis's
  // number of values; excluded: the exclusion entries as value-index lists, null for any value):
  // the fewest changed axes, ties to the first selection in axis order. {index, distance}, or
  // null when every selection is excluded.
  function nearestOffered(sizes, chosen, excluded) {
    var best = null;
    var bestDistance = Infinity;
    var walk = function (i, candidate, distance) {
      if (distance >= bestDistance) { return; }
      if (i === sizes.length) {
        if (!excluded.some(function (p) { return files().admits(p, candidate); })) {
          best = candidate.slice();
          bestDistance = distance;
        }
        return;
      }
      for (var v = 0; v < sizes[i]; v += 1) {
        candidate[i] = v;
        walk(i + 1, candidate, distance + (v === chosen[i] ? 0 : 1));
      }
    };
    walk(0, [], 0);
    return best && { index: best, distance: bestDistance };
  }

  // The nearest offered selection as axis -> value; null when the grid's own is offered or none is
  function nearest(grid) {
    var excluded = JSON.parse(grid.dataset.excluded || "[]");
    var axes = axisValues(grid);
    var names = (grid.dataset.axes || "").split(" ").filter(Boolean);
    var sizes = names.map(function (axis) { return axes[axis].length; });
    var found = nearestOffered(sizes, chosenIndex(grid), excluded);
    if (!found || found.distance === 0) { return null; }
    var out = {};
    names.forEach(function (axis, a) { out[axis] = axes[axis][found.index[a]]; });
    return out;
  }

  function offerNearest(grid) {
    var target = grid.dataset.excluded && grid.dataset.excluded !== "[]" ? nearest(grid) : null;
    grid.querySelectorAll(".rb-nearest").forEach(function (p) {
      p.hidden = !target;
      if (!target) { return; }
      var button = p.querySelector("button");
      button.rbTarget = target;
      button.textContent = button.dataset.label + ": " + Object.keys(target).map(function (axis) {
        return axis + "=" + target[axis];
      }).join(", ");
    });
  }

  function chooseNearest(grid, target) {
    grid.querySelectorAll("input[data-axis]").forEach(function (input) {
      var value = target[input.dataset.axis];
      if (input.type === "checkbox") { input.checked = value === "on"; }
      else if (input.value === value) { input.checked = true; }
    });
    remember(grid);
  }

  // sphinx-copybutton speaks only a few languages: translate its tooltips in place.
  function localizeCopybutton() {
    var translate = function (button) {
      var text = button.getAttribute("data-tooltip");
      var translated = say(text);
      if (translated !== text) { button.setAttribute("data-tooltip", translated); }
    };
    var observer = new MutationObserver(function (changes) {
      changes.forEach(function (change) { translate(change.target); });
    });
    document.querySelectorAll(".copybtn").forEach(function (button) {
      translate(button);
      observer.observe(button, { attributes: true, attributeFilter: ["data-tooltip"] });
    });
  }

  // The language switcher keeps the chosen selection (the URL fragment).
  function keepFragmentOnLanguageSwitch() {
    document.querySelectorAll("a.rb-lang-link").forEach(function (link) {
      link.addEventListener("click", function () {
        link.href = link.href.split("#")[0] + location.hash;
      });
    });
  }

  function init() {
    keepFragmentOnLanguageSwitch();
    // copybutton adds its buttons on DOMContentLoaded too; let it run first
    setTimeout(localizeCopybutton, 0);
    document.querySelectorAll(".rb-copy").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () { copy(button); });
    });
    loadValues();
    document.querySelectorAll("form.rb-grid").forEach(function (grid) {
      placeholderPanel(grid);
      grid.querySelectorAll("button.rb-near").forEach(function (button) {
        button.addEventListener("click", function () { if (button.rbTarget) { chooseNearest(grid, button.rbTarget); } });
      });
      pointReport(grid);
      offerNearest(grid);
      grid.addEventListener("change", function (event) {
        if (event.target && event.target.closest && event.target.closest(".rb-phform")) { return; }
        remember(grid);
      });
      grid.addEventListener("reset", function () { setTimeout(function () { remember(grid); }, 0); });
      grid.addEventListener("submit", function (event) { event.preventDefault(); });
    });
    document.querySelectorAll("table.rb-catalogue").forEach(catalogueFilters);
    applyValues();
    followTabs();
    var landed = restore();
    if (landed) { land(landed); }
    window.addEventListener("hashchange", function () {
      var grid = restore();
      if (grid) { land(grid); }
    });
    // values entered on another page (or tab) apply here too
    window.addEventListener("storage", function (event) { if (event.key === STORE) { syncPanels(); } });
  }


  // ---- the catalogue's filters (progressive enhancement: the table is whole without them) ----

  // each filter: its label, what a row offers (a list), and the labels of the values it knows
  var FILTERS = [
    { key: "provider", label: "Provider", cells: ".rb-col-provider" },
    { key: "sku", label: "NPU", cells: ".rb-col-sku" },
    { key: "npus", label: "NPU count", cells: ".rb-col-npus" },
    { key: "kind", label: "Strategy kind", prefix: "rb-kind-",
      values: { aggregated: "Aggregated", disaggregated: "Prefill/decode disaggregated" } },
    { key: "feature", label: "Feature", prefix: "rb-has-",
      values: { "speculative-decoding": "Speculative decoding", "kv-offload": "KV offload" } },
  ];

  function rowValues(row, filter) {
    if (filter.prefix) {
      return Array.prototype.filter.call(row.classList, function (name) { return name.indexOf(filter.prefix) === 0; })
        .map(function (name) { return name.slice(filter.prefix.length); });
    }
    var cell = row.querySelector(filter.cells);
    return cell ? cell.textContent.split(",").map(function (v) { return v.trim(); }).filter(Boolean) : [];
  }

  function catalogueFilters(table) {
    var rows = Array.prototype.slice.call(table.querySelectorAll("tbody > tr"));
    if (rows.length < 2) { return; }
    var form = document.createElement("form");
    form.className = "rb-cat-filters";
    form.setAttribute("role", "search");
    form.setAttribute("aria-label", say("Narrow the list"));
    var selects = [];
    FILTERS.forEach(function (filter) {
      var seen = {};
      rows.forEach(function (row) { rowValues(row, filter).forEach(function (v) { seen[v] = true; }); });
      var values = Object.keys(seen).sort(function (a, b) {
        var x = Number(a), y = Number(b);
        return isNaN(x) || isNaN(y) ? a.localeCompare(b) : x - y;
      });
      if (values.length < 2) { return; }
      var label = document.createElement("label");
      var select = document.createElement("select");
      select.dataset.filter = filter.key;
      label.appendChild(document.createTextNode(say(filter.label) + " "));
      var any = document.createElement("option");
      any.value = "";
      any.textContent = say("Any");
      select.appendChild(any);
      values.forEach(function (value) {
        var option = document.createElement("option");
        option.value = value;
        option.textContent = filter.values && filter.values[value] ? say(filter.values[value]) : value;
        select.appendChild(option);
      });
      label.appendChild(select);
      form.appendChild(label);
      selects.push([filter, select]);
    });
    var status = document.createElement("p");
    status.className = "rb-cat-count";
    status.setAttribute("role", "status");
    form.appendChild(status);
    function apply() {
      var shown = 0;
      rows.forEach(function (row) {
        var ok = selects.every(function (pair) {
          return !pair[1].value || rowValues(row, pair[0]).indexOf(pair[1].value) >= 0;
        });
        row.hidden = !ok;
        shown += ok ? 1 : 0;
      });
      status.textContent = say("{shown} of {total} recipes", { shown: String(shown), total: String(rows.length) });
    }
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    var place = table.closest(".table-wrapper") || table;
    place.parentNode.insertBefore(form, place);
    apply();
  }

  // Node.js (tests/js) reads what runs without a page; the page itself exports nothing.
  if (typeof module !== "undefined" && module.exports) { module.exports = { nearestOffered: nearestOffered }; }
  if (typeof document === "undefined") { return; }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); }
  else { init(); }
}());
