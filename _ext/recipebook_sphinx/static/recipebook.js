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
  }

  function copy(button) {
    var pre = button.parentElement.querySelector("pre");
    var text = pre.innerText.replace(/\n$/, "");  // live innerText skips the hidden lines
    var done = function () {
      // keep the label once: a second click within the pause must not take "Copied!" for it
      if (!button.dataset.label) { button.dataset.label = button.textContent; }
      clearTimeout(button.rbTimer);
      button.textContent = button.dataset.done;
      button.classList.add("rb-done");
      button.rbTimer = setTimeout(function () {
        button.textContent = button.dataset.label;
        button.classList.remove("rb-done");
      }, 1500);
    };
    if (navigator.clipboard) { navigator.clipboard.writeText(text).then(done); }
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
      grid.addEventListener("change", function () { remember(grid); });
      grid.addEventListener("reset", function () { setTimeout(function () { remember(grid); }, 0); });
      grid.addEventListener("submit", function (event) { event.preventDefault(); });
    });
    restore();
    window.addEventListener("hashchange", restore);
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); }
  else { init(); }
}());
