/* Ready-to-run files in the browser: serve.sh, and per command a vLLM config and an env
   file, for whatever selection the reader chose, one by one or in one tar archive. The site
   publishes static files only for the selection each target opens on; any other selection's
   files are written here from the recipe's API document (api/recipes/NAME.json: per target
   and role, every line with the axis values and ranks it shows under) with the same rules as
   the engine's recipebook/rendering/files.py. The tests run this file and compare its output with the
   engine's for every selection. Without JavaScript the link opens the static files of the
   opening selection. The explorer's Kubernetes panel shows the selection's kubernetes/ files
   from the same build (showManifests).

   It also holds the one check of a value a reader fills in for a placeholder (valueProblem),
   which recipebook.js uses wherever a value is shown, copied or written: in the panel, and
   on whatever localStorage or a link holds. */
(function (root) {
  "use strict";

  var PLACEHOLDER = /<([A-Z][A-Z0-9_]*)>/g;
  var CONTINUATION = " \\\n";
  var ARG_INDENT = "    ";
  var HOST = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
  var IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
  var PLAIN = /^[A-Za-z0-9._:\/@%+=,-]{1,253}$/;  // nothing that quotes, splits or expands in a shell word
  var HOST_NAME = /(_IP|_HOST|_ADDR|_ADDRESS)$/;
  var PORT_NAME = /^(?:.*_)?PORT$/;
  var PORT_VALUE = /^[1-9][0-9]{0,4}$/;  // no leading zero: YAML 1.1 reads 010 as 8

  // Why a value may not stand in for a placeholder ("" when it may): "plain" when it is not
  // one plain shell word, "host" when a host's placeholder gets something that is not a host,
  // "port" when a port's placeholder gets something that is not a port (1-65535).
  // files.py value_problem is its twin.
  function valueProblem(name, value) {
    if (typeof value !== "string" || !PLAIN.test(value)) { return "plain"; }
    if (PORT_NAME.test(name)) { return PORT_VALUE.test(value) && Number(value) <= 65535 ? "" : "port"; }
    if (HOST_NAME.test(name) && !(IPV4.test(value) || (HOST.test(value) && !/^[\d.]+$/.test(value)))) {
      return "host";
    }
    return "";
  }

  // The values of an object that may be used, by key (NAME or NAME@NODE), and the keys dropped.
  function checkedValues(values) {
    var good = {};
    var dropped = [];
    if (!values || typeof values !== "object" || Array.isArray(values)) { return { values: good, dropped: dropped }; }
    Object.keys(values).forEach(function (key) {
      var match = /^([A-Z][A-Z0-9_]*)(?:@([1-9]\d{0,2}))?$/.exec(key);
      if (!match || valueProblem(match[1], values[key])) { dropped.push(key); return; }
      good[key] = values[key];
    });
    return { values: good, dropped: dropped };
  }

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

  function own(values, key) { return Object.prototype.hasOwnProperty.call(values, key) ? values[key] : undefined; }

  // A reader's value for a placeholder in a command of a node: the node's own (NAME@NODE), else
  // the one for every node (files.py value_for)
  function valueFor(values, name, node) {
    if (node !== null && node !== undefined) {
      var mine = own(values, name + "@" + node);
      if (mine !== undefined) { return mine; }
    }
    return own(values, name);
  }

  // The values with those of the head placeholders added: on each node of a role that spans
  // nodes, a head placeholder takes the value its node placeholder has on the role's head
  // (files.py head_values)
  function headValues(values, target, commands) {
    var heads = (target.placeholders || []).filter(function (p) { return p.scope === "head" && p.of; });
    if (!values || !heads.length) { return values; }
    var out = {};
    Object.keys(values).forEach(function (key) { out[key] = values[key]; });
    var first = {};
    commands.forEach(function (command) {
      if (!command.spans) { return; }
      if (!Object.prototype.hasOwnProperty.call(first, command.role)) { first[command.role] = command.node; }
      heads.forEach(function (p) {
        var value = own(values, p.of + "@" + first[command.role]);
        if (value !== undefined) { out[p.name + "@" + command.node] = value; }
      });
    });
    return out;
  }

  function substitute(text, values, node) {
    if (!values) { return text; }
    return text.replace(PLACEHOLDER, function (match, name) {
      var value = valueFor(values, name, node);
      return value === undefined ? match : value;
    });
  }

  function commandText(command) {
    var head = command.launcher + " " + quote(command.model);
    var text = command.envs.concat([head]).join(CONTINUATION);
    return command.args.length ? text + CONTINUATION + ARG_INDENT + command.args.join(CONTINUATION + ARG_INDENT) : text;
  }

  function commandName(command) {
    if (command.spans) { return command.role + "-node" + command.node; }
    return command.rank === null ? command.role : command.role + "-rank" + command.rank;
  }

  // How serve.sh names a command on its command line (files.py _choice)
  function choiceName(command) {
    if (command.spans) { return command.role + " node" + command.node; }
    return command.rank === null ? command.role : command.role + " " + command.rank;
  }

  // A comment per role that spans nodes: where each of its commands runs, the head first
  function startOrder(commands) {
    var roles = [];
    var byRole = {};
    commands.forEach(function (command) {
      if (!command.spans) { return; }
      if (!byRole[command.role]) { byRole[command.role] = []; roles.push(command.role); }
      byRole[command.role].push(command);
    });
    return roles.map(function (role) {
      var list = byRole[role];
      var head = list[0];
      return "# " + role + " spans nodes " + head.node + "-" + list[list.length - 1].node + ": start ./serve.sh " +
        choiceName(head) + " on node " + head.node + " (the head) first, then " +
        list.slice(1).map(function (c) { return "./serve.sh " + choiceName(c) + " on node " + c.node; }).join(", ");
    });
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

  function admits(when, chosen) {
    return when.every(function (allowed, a) { return allowed === null || allowed.indexOf(chosen[a]) >= 0; });
  }

  // The commands of one selection: each role's lines its values and each rank admit, in order
  function commandsOf(target, selection) {
    var chosen = target.axes.map(function (axis) { return axis[1].indexOf(selection[axis[0]]); });
    var commands = [];
    target.roles.forEach(function (role) {
      var shown = role.lines.filter(function (line) { return admits(line.when, chosen); });
      var ranks = role.ranks === null ? [null] : Array.from({ length: role.ranks }, function (_, k) { return k; });
      ranks.forEach(function (rank) {
        var lines = shown.filter(function (line) { return line.ranks === null || line.ranks.indexOf(rank) >= 0; });
        var args = lines.filter(function (l) { return l.kind === "arg"; });
        var envLines = lines.filter(function (l) { return l.kind === "env"; });
        commands.push({
          role: role.role, rank: rank, node: role.nodes ? role.nodes[rank] : role.node, spans: Boolean(role.nodes),
          launcher: role.launcher, model: role.model,
          envs: lines.filter(function (l) { return l.kind === "env"; }).map(function (l) { return l.text; }),
          args: args.map(function (l) { return l.text; }), argLines: args, envLines: envLines,
        });
      });
    });
    return commands;
  }

  function serveSh(recipe, target, selection, commands, values) {
    var pairs = target.axes.map(function (axis) { return axis[0] + "=" + selection[axis[0]]; }).join(" ");
    values = headValues(values, target, commands);
    var parts = [
      "#!/usr/bin/env bash",
      "# " + recipe + ": " + target.strategy + " / " + target.target,
      "# selection: " + pairs,
      "# Generated from the recipe; run one command per server, e.g. ./serve.sh " + choiceName(commands[0]),
    ].concat(startOrder(commands), [
      "set -euo pipefail",
      "",
    ]);
    var names = commands.map(function (command) {
      var name = "serve_" + commandName(command).replace(/-/g, "_");
      var text = substitute(command.shell, values, command.node);
      parts.push(shellFunction(name, fillPlaceholders(text), placeholders(text)));
      return name;
    });
    var choices = commands.map(function (command, k) {
      return "  " + quote(choiceName(command).replace(" ", ":")) + ") " + names[k] + " ;;";
    });
    if (target.router.length) {
      var steps = target.router.map(function (step) { return substitute(step.cmd, values, null); }).join("\n");
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
    var found = placeholders(substitute(command.args.join(" "), values, command.node));
    var note = found.length ? "# Replace " + found.map(function (p) { return "<" + p + ">"; }).join(", ") + " before use.\n" : "";
    return "# vllm serve " + command.model + " --config " + commandName(command) + ".yaml\n" + note +
      substitute(body, values, command.node);
  }

  function envFile(command, values) {
    return command.envs.map(function (e) { return "export " + substitute(e, values, command.node) + "\n"; }).join("");
  }

  // kubernetes.py _dns: a name Kubernetes takes (lower case, dashes)
  function dnsName(text) {
    return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 63).replace(/-+$/, "") || "x";
  }

  // The Kubernetes files of a selection: the skeletons its set of selections shares, each
  // container's marker lines replaced by the fragments of its lines (kubernetes.py fill)
  function kubernetesFiles(target, selection, commands, values) {
    var chosen = target.axes.map(function (axis) { return axis[1].indexOf(selection[axis[0]]); });
    var variant = (target.kubernetes || []).filter(function (v) {
      return !v.when.length || v.when.some(function (product) { return admits(product, chosen); });
    })[0];
    var out = {};
    if (!variant) { return out; }
    var byName = {};
    commands.forEach(function (command) { byName[dnsName(commandName(command))] = command; });
    var nodes = {};
    target.roles.forEach(function (role) { nodes["kubernetes/" + dnsName(role.role) + ".yaml"] = role.node; });
    Object.keys(variant.files).forEach(function (name) {
      var text = variant.files[name].replace(/^( *)- RECIPEBOOK-(ARGS|ENV)-([a-z0-9-]+)\n/gm, function (m, indent, kind, who) {
        var lines = kind === "ARGS" ? byName[who].argLines : byName[who].envLines;
        var body = lines.map(function (l) { return l.k8s; }).join("");
        return body.split("\n").slice(0, -1).map(function (row) { return indent + row + "\n"; }).join("");
      });
      out[name] = substitute(text, values, Object.prototype.hasOwnProperty.call(nodes, name) ? nodes[name] : null);
    });
    return out;
  }

  // Every file of one selection of one target document, by file name; only checked values are used
  function build(data, selection, values) {
    var target = data.target;
    var usable = checkedValues(values || {}).values;
    var commands = commandsOf(target, selection).map(function (command) {
      command.shell = commandText(command);
      return command;
    });
    var files = {};
    files["serve.sh"] = serveSh(data.recipe, target, selection, commands, usable);
    usable = headValues(usable, target, commands);
    commands.forEach(function (command) {
      var name = commandName(command);
      files[name + ".yaml"] = configYaml(command, usable);
      files[name + ".env"] = envFile(command, usable);
    });
    var manifests = kubernetesFiles(target, selection, commands, usable);
    Object.keys(manifests).forEach(function (name) { files[name] = manifests[name]; });
    return files;
  }

  // -- one archive: ustar, as files.py archive() writes it, byte for byte ---------------

  function octal(number, width) {
    var text = number.toString(8);
    while (text.length < width - 1) { text = "0" + text; }
    return text + "\0";
  }

  // the folder goes in the prefix field, the file name in the name field (a whole path of up to 255)
  function header(folder, name, size, mode) {
    var block = new Uint8Array(512);
    var put = function (offset, text) {
      for (var i = 0; i < text.length; i += 1) { block[offset + i] = text.charCodeAt(i); }
    };
    put(0, name);
    put(100, octal(mode, 8));
    put(108, octal(0, 8));
    put(116, octal(0, 8));
    put(124, octal(size, 12));
    put(136, octal(0, 12));
    put(148, "        ");
    put(156, "0");
    put(257, "ustar\u000000");
    put(329, octal(0, 8));
    put(337, octal(0, 8));
    put(345, folder);
    var sum = 0;
    for (var i = 0; i < 512; i += 1) { sum += block[i]; }
    put(148, octal(sum, 7) + " ");
    return block;
  }

  // A tar archive of the files (names sorted as given) in one folder
  function archive(folder, files) {
    var encoder = new TextEncoder();
    var blocks = [];
    // the same refusal as files.py archive(): a name longer than its field is never cut
    if (encoder.encode(folder).length > 155 ||
        Object.keys(files).some(function (name) { return encoder.encode(name).length > 100; })) {
      throw new RangeError("a folder or file name is too long for a tar header");
    }
    Object.keys(files).forEach(function (name) {
      var data = encoder.encode(files[name]);
      blocks.push(header(folder, name, data.length, /\.sh$/.test(name) ? 493 : 420));
      var padded = new Uint8Array(Math.ceil(data.length / 512) * 512);
      padded.set(data);
      blocks.push(padded);
    });
    blocks.push(new Uint8Array(1024));
    var size = blocks.reduce(function (n, b) { return n + b.length; }, 0);
    var total = Math.ceil(size / 10240) * 10240;
    var out = new Uint8Array(total);
    var offset = 0;
    blocks.forEach(function (b) { out.set(b, offset); offset += b.length; });
    return out;
  }

  function folderName(recipe, target) {
    return (recipe + "-" + target.strategy + "-" + target.target).replace(/[^A-Za-z0-9._-]+/g, "-");
  }

  var api = {
    build: build, commandsOf: commandsOf, quote: quote, valueProblem: valueProblem, admits: admits,
    checkedValues: checkedValues, archive: archive, folderName: folderName,
  };
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
    try { return JSON.parse(localStorage.getItem("rb-placeholders") || "{}"); }
    catch (error) { return {}; }
  }

  function blobLink(name, data, type) {
    var a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([data], { type: type }));
    a.download = name;
    a.textContent = name;
    return a;
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
      var folder = folderName(recipe.recipe, target);
      var whole = document.createElement("li");
      whole.className = "rb-dl-all";
      whole.appendChild(blobLink(folder + ".tar", archive(folder, files), "application/x-tar"));
      list.appendChild(whole);
      Object.keys(files).forEach(function (name) {
        var item = document.createElement("li");
        item.appendChild(blobLink(name, files[name], "text/plain"));
        list.appendChild(item);
      });
    }).catch(function () {
      // the document could not be had (say, the page opened from disk): keep the static link
      window.location.href = link.href;
    });
  }

  // -- the explorer's Kubernetes manifests: the kubernetes/ files of the selection, as build
  // writes them for the download; each file name becomes a download of exactly that text.
  // Without JavaScript (or the API document) the names open the opening selection's copies.

  function showManifests(grid, link, panel) {
    documentFor(link).then(function (recipe) {
      var target = recipe.targets.filter(function (t) {
        return t.strategy === grid.dataset.strategy && t.target === grid.dataset.target;
      })[0];
      var files = build({ recipe: recipe.recipe, target: target }, chosen(grid), storedValues());
      var names = panel.querySelectorAll("a[data-file]");
      panel.querySelectorAll(".rb-k8s-file").forEach(function (box, k) {
        var name = box.dataset.file;
        var text = files[name];
        var anchor = names[k];
        if (anchor.dataset.blob) { URL.revokeObjectURL(anchor.dataset.blob); }
        if (text === undefined) { box.hidden = true; return; }
        box.querySelector("pre").textContent = text;
        box.hidden = false;
        anchor.href = anchor.dataset.blob = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
        anchor.download = name.split("/").pop();
      });
      panel.querySelector(".rb-k8s-static").hidden = true;
      panel.classList.add("rb-k8s-live");
    }).catch(function () { /* the document could not be had: the static links stay */ });
  }

  function init() {
    document.querySelectorAll("form.rb-grid").forEach(function (grid) {
      var link = grid.querySelector("a.rb-dl");
      if (!link) { return; }
      var panel = grid.querySelector("details.rb-k8s-panel");
      if (panel) {
        var show = function () { if (panel.open) { showManifests(grid, link, panel); } };
        panel.addEventListener("toggle", show);
        grid.addEventListener("change", show);
        grid.addEventListener("rb-values", show);
        grid.addEventListener("reset", function () { setTimeout(show, 0); });
      }
      link.addEventListener("click", function (event) {
        event.preventDefault();
        offer(grid, link);
      });
      // a list already offered follows the selection and the values
      var follow = function () { if (grid.querySelector(".rb-dl-files")) { offer(grid, link); } };
      grid.addEventListener("change", follow);
      grid.addEventListener("rb-values", follow);
      grid.addEventListener("reset", function () { setTimeout(follow, 0); });
    });
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); }
  else { init(); }
}(typeof window !== "undefined" ? window : globalThis));
