/* Recipe explorer: copy buttons, and the selection in the URL fragment.
   Everything works without this file; it only adds copying and deep links. */
(function () {
  "use strict";

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

  function restore() {
    var hash = decodeURIComponent(location.hash.slice(1));
    if (hash.indexOf("s=") !== 0) { return; }
    var params = new URLSearchParams(hash);
    var grid = Array.prototype.find.call(document.querySelectorAll("form.rb-grid"), function (g) {
      return g.dataset.strategy === params.get("s") && g.dataset.target === params.get("t");
    });
    if (!grid) { return; }
    showTab(grid);
    grid.querySelectorAll("input[data-axis]").forEach(function (input) {
      var value = params.get(input.dataset.axis);
      if (value === null) { return; }
      if (input.type === "checkbox") { input.checked = value === "on"; }
      else if (input.value === value) { input.checked = true; }
    });
    pointReport(grid);
    offerNearest(grid);
    // a deep link (and the language switch, which keeps it) lands on the explorer
    grid.scrollIntoView({ block: "start" });
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

  // ---- placeholder values (localStorage "rb-placeholders": {"POD_IP": "10.0.0.5", ...}) ----
  var STORE = "rb-placeholders";
  var HOST = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
  var IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
  var PLAIN = /^[A-Za-z0-9._:\/@%+=,-]+$/;  // nothing that quotes, splits or expands in a shell word

  function loadValues() {
    try {
      var values = JSON.parse(localStorage.getItem(STORE) || "{}");
      return values && typeof values === "object" ? values : {};
    } catch (error) { return {}; }
  }

  function saveValues(values) {
    try { localStorage.setItem(STORE, JSON.stringify(values)); } catch (error) { /* private mode: this page only */ }
  }

  // "" when the value may stand in for the placeholder, else why not
  function problem(name, value) {
    var strings = window.RB_STRINGS || {};
    var say = function (text) { return strings[text] || text; };
    if (!PLAIN.test(value)) {
      return say("Use letters, digits and . - _ : / only: quotes, spaces, $, backquotes and other shell characters would change the command.");
    }
    if (/(_IP|_HOST|_ADDR|_ADDRESS)$/.test(name) && !(IPV4.test(value) || (HOST.test(value) && !/^[\d.]+$/.test(value)))) {
      return say("Enter a host name or an IPv4 address, such as 10.0.0.5.");
    }
    return "";
  }

  function applyValues() {
    var values = loadValues();
    document.querySelectorAll(".rb-grid .rb-ph").forEach(function (span) {
      if (span.closest("dt")) { return; }  // the list of placeholders keeps their names
      if (!span.dataset.ph) { span.dataset.ph = span.textContent.slice(1, -1); }
      var value = values[span.dataset.ph];
      span.textContent = value ? value : "<" + span.dataset.ph + ">";
      span.classList.toggle("rb-filled", Boolean(value));
    });
  }

  function placeholderPanel(grid) {
    var notes = grid.querySelector(".rb-ph-notes");
    if (!notes) { return; }
    var strings = window.RB_STRINGS || {};
    var say = function (text) { return strings[text] || text; };
    var names = [];
    notes.querySelectorAll("dt code").forEach(function (code) { names.push(code.textContent.slice(1, -1)); });
    var panel = document.createElement("div");
    panel.className = "rb-phform";
    var message = document.createElement("p");
    message.className = "rb-phmsg";
    message.setAttribute("role", "status");
    names.forEach(function (name) {
      var id = grid.id + "-ph-" + name;
      var label = document.createElement("label");
      label.htmlFor = id;
      label.textContent = "<" + name + ">";
      var input = document.createElement("input");
      input.type = "text";
      input.id = id;
      input.dataset.ph = name;
      input.autocomplete = "off";
      input.spellcheck = false;
      input.value = loadValues()[name] || "";
      input.addEventListener("change", function () {
        var value = input.value.trim();
        var values = loadValues();
        var why = value ? problem(name, value) : "";
        if (why) {
          input.setAttribute("aria-invalid", "true");
          message.textContent = "<" + name + ">: " + why;
          message.classList.add("rb-bad");
          return;
        }
        input.removeAttribute("aria-invalid");
        message.classList.remove("rb-bad");
        message.textContent = "";
        if (value) { values[name] = value; } else { delete values[name]; }
        saveValues(values);
        syncPanels();
      });
      panel.appendChild(label);
      panel.appendChild(input);
    });
    var clear = document.createElement("button");
    clear.type = "button";
    clear.className = "rb-phclear";
    clear.textContent = say("Clear the values");
    clear.addEventListener("click", function () {
      var values = loadValues();
      names.forEach(function (name) { delete values[name]; });
      saveValues(values);
      message.textContent = "";
      message.classList.remove("rb-bad");
      syncPanels();
    });
    panel.appendChild(clear);
    panel.appendChild(message);
    notes.parentNode.insertBefore(panel, notes.nextSibling);
  }

  function syncPanels() {
    var values = loadValues();
    document.querySelectorAll(".rb-phform input[data-ph]").forEach(function (input) {
      if (input.getAttribute("aria-invalid") !== "true") { input.value = values[input.dataset.ph] || ""; }
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
    var grid = button.closest("form") || document.body;
    grid.classList.add("rb-copying");  // struck-through and screen-reader-only marks are not copied
    var text = pre.innerText.replace(/\n$/, "");  // live innerText skips the hidden lines
    grid.classList.remove("rb-copying");
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
      var strings = window.RB_STRINGS || {};
      var failed = "Copying is blocked here: select the text and copy it yourself.";
      // select the command so that Ctrl+C copies it
      var range = document.createRange();
      range.selectNodeContents(pre);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      show(strings[failed] || failed, true);
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

  function axisValues(grid) {
    var axes = {};
    grid.querySelectorAll("input[data-axis]").forEach(function (input) {
      var list = axes[input.dataset.axis] || (axes[input.dataset.axis] = []);
      if (input.type === "checkbox") { list.push("off", "on"); } else { list.push(input.value); }
    });
    return axes;
  }

  // fewest changed axes; ties go to the first selection in axis order (as recipebook.client)
  function nearest(grid) {
    var excluded = JSON.parse(grid.dataset.excluded || "[]");
    var state = gridState(grid);
    var names = (grid.dataset.axes || "").split(" ").filter(Boolean);
    var axes = axisValues(grid);
    var isExcluded = function (chosen) {
      return excluded.some(function (entry) {
        return Object.keys(entry).every(function (axis) { return chosen[axis] === entry[axis]; });
      });
    };
    var best = null, bestDistance = Infinity;
    var walk = function (i, chosen, distance) {
      if (distance >= bestDistance) { return; }
      if (i === names.length) {
        if (!isExcluded(chosen)) { best = Object.assign({}, chosen); bestDistance = distance; }
        return;
      }
      axes[names[i]].forEach(function (value) {
        chosen[names[i]] = value;
        walk(i + 1, chosen, distance + (value === state.get(names[i]) ? 0 : 1));
      });
    };
    walk(0, {}, 0);
    return bestDistance > 0 ? best : null;
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
    var strings = window.RB_STRINGS || {};
    var translate = function (button) {
      var text = button.getAttribute("data-tooltip");
      if (strings[text] && strings[text] !== text) { button.setAttribute("data-tooltip", strings[text]); }
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
    document.querySelectorAll("form.rb-grid").forEach(function (grid) {
      placeholderPanel(grid);
      grid.querySelectorAll("button.rb-near").forEach(function (button) {
        button.addEventListener("click", function () { if (button.rbTarget) { chooseNearest(grid, button.rbTarget); } });
      });
      pointReport(grid);
      offerNearest(grid);
      grid.addEventListener("change", function () { remember(grid); });
      grid.addEventListener("reset", function () { setTimeout(function () { remember(grid); }, 0); });
      grid.addEventListener("submit", function (event) { event.preventDefault(); });
    });
    applyValues();
    followTabs();
    restore();
    window.addEventListener("hashchange", restore);
    // values entered on another page (or tab) apply here too
    window.addEventListener("storage", function (event) { if (event.key === STORE) { syncPanels(); } });
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); }
  else { init(); }
}());
