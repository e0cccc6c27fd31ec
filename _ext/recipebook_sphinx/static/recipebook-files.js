/* Ready-to-run files in the browser: serve.sh, and per command a vLLM config and an env
   file, for whatever selection the reader chose. The site publishes static files only for
   the selection each target opens on; any other selection's files are written here from
   the recipe's API document (api/recipes/NAME.json: per target, every line with the axis
   values it shows under) with the same rules as the engine's recipebook/files.py. The
   tests run this file and compare its output with the engine's for every selection.
   Without JavaScript the link opens the static files of the opening selection. */
(function (root) {
  "use strict";

  var PLACEHOLDER = /<([A-Z][A-Z0-9_]*)>/g;
  var CONTINUATION = " \\\n";
  var ARG_INDENT = "    ";

  // Python's shlex.quote
  function quote(text) {
    if (text === "") { return "''"; }
    if (!/[^A-Za-z0-9_@%+=:,.\/-]/.test(text)) { return text; }
    return "'" + text.replace(/'/g, "'\"'\"'") + "'";
  }

  function placeholders(text) {
    var seen = [];
    text.replace(PLACEHOLDER, function (match, name) {
      if (seen.indexOf(name) < 0) { seen.push(name); }
      return match;
    });
    return seen;
  }

  function substitute(text, values) {
    if (!values) { return text; }
    return text.replace(PLACEHOLDER, function (match, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? values[name] : match;
    });
  }

  function commandText(command) {
    return command.envs.map(function (e) { return e + CONTINUATION; }).join("") +
      command.launcher + " " + quote(command.model) +
      command.args.map(function (a) { return CONTINUATION + ARG_INDENT + a; }).join("");
  }

  function commandName(command) {
    return command.rank === null ? command.role : command.role + "-rank" + command.rank;
  }

  // <NAME> becomes a reference to $NAME, keeping the shell quoting valid (files.py)
  function fillPlaceholders(text) {
    var out = [];
    var quoteChar = null;
    var i = 0;
    var pattern = /^<([A-Z][A-Z0-9_]*)>/;
    while (i < text.length) {
      var match = pattern.exec(text.slice(i));
      if (match) {
        var name = match[1];
        if (quoteChar === "'") { out.push("'\"${" + name + "}\"'"); }
        else if (quoteChar === "\"") { out.push("${" + name + "}"); }
        else { out.push("\"${" + name + "}\""); }
        i += match[0].length;
        continue;
      }
      var ch = text[i];
      if ((ch === "'" || ch === "\"") && (quoteChar === null || quoteChar === ch)) {
        quoteChar = quoteChar === ch ? null : ch;
      }
      out.push(ch);
      i += 1;
    }
    return out.join("")
      .replace(/''(?="\$\{[A-Z][A-Z0-9_]*\}")/g, "")
      .replace(/(?<=\}")''/g, "");
  }

  function shellFunction(name, body, needs) {
    var checks = needs.map(function (v) { return ": \"${" + v + ":?set " + v + " (see the recipe page)}\"\n"; });
    return name + "() {\n" + checks.join("") + body + "\n}\n";
  }

  // The commands of one selection: each block's lines shown under the chosen values
  function commandsOf(target, selection) {
    var chosen = target.axes.map(function (axis) { return axis[1].indexOf(selection[axis[0]]); });
    return target.blocks.map(function (block) {
      var shown = block.lines.filter(function (line) {
        return line.when.every(function (allowed, a) { return allowed === null || allowed.indexOf(chosen[a]) >= 0; });
      });
      return {
        role: block.role, rank: block.rank, launcher: block.launcher, model: block.model,
        envs: shown.filter(function (l) { return l.kind === "env"; }).map(function (l) { return l.text; }),
        args: shown.filter(function (l) { return l.kind === "arg"; }),
      };
    });
  }

  function serveSh(recipe, target, selection, commands, values) {
    var pairs = target.axes.map(function (axis) { return axis[0] + "=" + selection[axis[0]]; }).join(" ");
    var parts = [
      "#!/usr/bin/env bash",
      "# " + recipe + ": " + target.strategy + " / " + target.target,
      "# selection: " + pairs,
      "# Generated from the recipe; run one command per server, e.g. ./serve.sh " +
        commandName(commands[0]).replace("-rank", " "),
      "set -euo pipefail",
      "",
    ];
    var names = commands.map(function (command) {
      var name = "serve_" + commandName(command).replace(/-/g, "_");
      var text = substitute(command.shell, values);
      parts.push(shellFunction(name, fillPlaceholders(text), placeholders(text)));
      return name;
    });
    var choices = commands.map(function (command, k) {
      var pattern = command.rank === null ? command.role : command.role + ":" + command.rank;
      return "  " + quote(pattern) + ") " + names[k] + " ;;";
    });
    if (target.router.length) {
      var steps = target.router.map(function (step) { return substitute(step.cmd, values); }).join("\n");
      parts.push(shellFunction("router", steps, []));
      choices.push("  router) router ;;");
    }
    var usage = choices.map(function (c) { return c.trim().split(")")[0]; }).join(" | ");
    var fallback = names.length === 1 ? names[0] : "";
    parts.push("what=\"${1:-" + (fallback ? "" : "help") + "}\"");
    parts.push("if [ \"$#\" -gt 1 ]; then what=\"$1:$2\"; fi");
    parts.push("case \"$what\" in");
    if (fallback) { parts.push("  '') " + fallback + " ;;"); }
    parts = parts.concat(choices);
    parts.push("  *) echo \"usage: $0 {" + usage.replace(/:/g, " ") + "}\" >&2; exit 2 ;;");
    parts.push("esac");
    return parts.join("\n") + "\n";
  }

  function configYaml(command, values) {
    var keys = [];
    var entries = {};
    command.argLines.forEach(function (line) {
      var key = line.config[0];
      if (!Object.prototype.hasOwnProperty.call(entries, key)) { keys.push(key); }
      entries[key] = line.config[1];
    });
    var body = keys.length ? keys.map(function (k) { return entries[k]; }).join("") : "{}\n";
    var found = placeholders(substitute(command.args.join(" "), values));
    var note = found.length ? "# Replace " + found.map(function (p) { return "<" + p + ">"; }).join(", ") + " before use.\n" : "";
    return "# vllm serve " + command.model + " --config " + commandName(command) + ".yaml\n" + note + substitute(body, values);
  }

  function envFile(command, values) {
    return command.envs.map(function (e) { return "export " + substitute(e, values) + "\n"; }).join("");
  }

  // Every file of one selection of one target document, by file name
  function build(data, selection, values) {
    var target = data.target;
    var commands = commandsOf(target, selection).map(function (c) {
      var command = {
        role: c.role, rank: c.rank, launcher: c.launcher, model: c.model, envs: c.envs,
        args: c.args.map(function (l) { return l.text; }), argLines: c.args,
      };
      command.shell = commandText(command);
      return command;
    });
    var files = {};
    files["serve.sh"] = serveSh(data.recipe, target, selection, commands, values);
    commands.forEach(function (command) {
      var name = commandName(command);
      files[name + ".yaml"] = configYaml(command, values);
      files[name + ".env"] = envFile(command, values);
    });
    return files;
  }

  var api = { build: build, commandsOf: commandsOf, quote: quote };
  root.RecipeFiles = api;
  if (typeof module !== "undefined" && module.exports) { module.exports = api; }

  if (typeof document === "undefined") { return; }

  // -- the explorer's "Ready-to-run files" link ------------------------------------

  var documents = {};

  function documentFor(link) {
    // data-base: ../api/recipes/NAME/STRATEGY/TARGET/  ->  ../api/recipes/NAME.json
    var url = link.dataset.base.replace(/recipes\/([^/]+)\/[^/]+\/[^/]+\/$/, "recipes/$1.json");
    if (!documents[url]) {
      documents[url] = fetch(url).then(function (response) {
        if (!response.ok) { throw new Error(response.status + " " + url); }
        return response.json();
      });
    }
    return documents[url];
  }

  function chosen(grid) {
    var selection = {};
    grid.querySelectorAll("input[data-axis]").forEach(function (input) {
      if (input.type === "checkbox") { selection[input.dataset.axis] = input.checked ? "on" : "off"; }
      else if (input.checked) { selection[input.dataset.axis] = input.value; }
    });
    return selection;
  }

  function storedValues() {
    try { return JSON.parse(localStorage.getItem("rb-placeholders") || "{}") || {}; }
    catch (error) { return {}; }
  }

  function offer(grid, link) {
    var list = grid.querySelector(".rb-dl-files");
    if (!list) {
      list = document.createElement("ul");
      list.className = "rb-dl-files";
      list.setAttribute("aria-live", "polite");
      link.parentElement.insertAdjacentElement("afterend", list);
    }
    documentFor(link).then(function (recipe) {
      var target = recipe.targets.filter(function (t) {
        return t.strategy === grid.dataset.strategy && t.target === grid.dataset.target;
      })[0];
      var files = build({ recipe: recipe.recipe, target: target }, chosen(grid), storedValues());
      list.querySelectorAll("a").forEach(function (a) { URL.revokeObjectURL(a.href); });
      list.textContent = "";
      Object.keys(files).forEach(function (name) {
        var item = document.createElement("li");
        var a = document.createElement("a");
        a.href = URL.createObjectURL(new Blob([files[name]], { type: "text/plain" }));
        a.download = name;
        a.textContent = name;
        item.appendChild(a);
        list.appendChild(item);
      });
    }).catch(function () {
      // the document could not be had (say, the page opened from disk): keep the static link
      window.location.href = link.href;
    });
  }

  function init() {
    document.querySelectorAll("form.rb-grid").forEach(function (grid) {
      var link = grid.querySelector("a.rb-dl");
      if (!link) { return; }
      link.addEventListener("click", function (event) {
        event.preventDefault();
        offer(grid, link);
      });
      // a list already offered follows the selection
      var follow = function () { if (grid.querySelector(".rb-dl-files")) { offer(grid, link); } };
      grid.addEventListener("change", follow);
      grid.addEventListener("reset", function () { setTimeout(follow, 0); });
    });
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); }
  else { init(); }
}(typeof window !== "undefined" ? window : globalThis));
