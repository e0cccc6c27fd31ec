"""Benchmarks of the build and the engine: `make bench` (or python bench/run.py).

Everything is measured in one run on this machine; ratios compare figures of that run.
`make bench` prints the table and writes it to _build/bench.md, the figures to
_build/bench.json (generated figures never go into the README; the site's Benchmarks page
says what each one measures). Nothing here imports the Sphinx adapter but the text of its settings
list (recipebook_sphinx.page.settings), which the plain pages hold in place of its directive.

- Shipped site: `make html` into fresh folders, the languages side by side (the default)
  and one after the other (LANGUAGE_JOBS=1), alternating, after one warm-up build; its
  output: files and bytes of api/ and of the two language trees.
- Generated site: N recipes (default 50), the shipped ones and variants of them (renamed,
  with changed values), each with the page of the recipe it was made from, plus the guide
  pages; English, -j 1 and -j 2, fresh folders, warnings as errors.
- Extension cost: the same site with every recipe directive replaced by its plain-text
  output (header facts as text and a table, the install and client commands, and per
  target the commands and router steps of the selection the page opens on, as code
  blocks; the catalogue and the flags table as Markdown tables), built without the
  recipebook extension. Ratio: full build time / plain build time. Both builds are then
  profiled once (cProfile), and the extension's entry points listed with their time.
- Rebuilds of the built site: with nothing changed, and after touching one recipe file.
- Engine: validate every recipe, expand every offered selection (every command's shell
  text), build and prove every explorer, in process; the fastest of three runs.
- Page weight (English recipe pages): the shipped page against the page built with
  recipebook_render=recommended (only the selection it opens on).
- Growth: bilingual generated sites of 10, 50 and 200 recipes (--curve), built once each:
  build time, per-recipe time, files and bytes of api/ and of the language trees, and each
  language's search index (searchindex.js, language_data.js, recipebook-search-data.js) with
  the bytes of its per-page summary files; the portals below give the same for recipes of one
  size and of many selections each (the index grows with recipes, not with selections).
- Portals (bench/portal.py, project copies built with `make html`): one of --portal recipes
  (default 200) of the shipped kind, ms a recipe; and portals of large recipes (--large-shape
  tabs,targets each; default 20 tabs of 10 targets) at each of --large (default 10 and 100
  recipes): seconds and output bytes a target, with the ratio of each to the first, from one run.
  --only-portals measures these alone (with --json, the figures go to that file, e.g. _build/).
- Peak memory: for each build step above, the largest resident size any one of its processes
  reached (the kernel's ru_maxrss of the step's process tree, from wait4 in a small launcher, so
  that the bench's own size is not counted in its children's), and that of this process, where
  the engine figures are measured (with what it did before them).

--quick runs every step above at the smallest sizes, once each (make test runs it: every
step still runs to the end on this project as it is; its figures mean nothing). Where two steps
would build the same pages, it builds them once and both read that build: the shipped site is
built by make html LANGUAGE_JOBS=1 alone (side by side, make html writes the same files; the
portals' make html runs the languages side by side); the profiled builds (-j 1, warnings as
errors, as every build here) are the -j 1 builds of the extension-cost figures; the growth
curve's site, of the generated site's size, is the generated site, its languages side by side:
its English build is the profiled -j 1 build of the directive pages (and the tree the rebuilds
rebuild), its Korean build, at -j 2, the -j 2 figure. The figures name the step that made each
shared figure's build (their "shared"), and so does the table.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import gzip
import html
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import portal  # bench/portal.py, beside this file (on the path of `python bench/run.py`)
from bs4 import BeautifulSoup

from recipebook import check_file, expand, forget, load, matrix
from recipebook.checking import rules as rule_statements
from recipebook.expanding import memory
from recipebook.expanding import page as page_model
from recipebook.expanding import results as stored_results
from recipebook.expanding.expansion import default_selection
from recipebook.expanding.page import context_length, expand_selection, flags_in_use
from recipebook.memo import Memo
from recipebook.reading.model import Recipe
from recipebook.rendering import kubernetes
from recipebook_sphinx.page.settings import markdown_list as settings_list

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted(p for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json")
ENV = {**os.environ, "LANG": "C.UTF-8"}  # the engine and the extension: installed in .venv (pip install -e .)
# a recipe directive (its argument, its option lines), and the recipe-memory role
DIRECTIVE = re.compile(r"```\{(recipe-[a-z-]+)\}[ \t]*([^\n]*)\n((?::[^\n]*\n)*)```\n")
ROLE = re.compile(r"\{(recipe-[a-z]+)\}`([^`]*)`")
TAGS = re.compile(r"<[^>]+>")
PEAKS: dict[str, int] = {}  # step -> the largest resident size (bytes) of any one of its processes


# -- the generated site ----------------------------------------------------------------


def variant(data: dict, index: int) -> dict:
    """A shipped recipe renamed, with values changed that the rules leave free."""
    data = json.loads(json.dumps(data))
    data["name"] = f"{data['name']}-b{index:02d}"
    for language, texts in data["text"].items():
        texts["sub"] = f"{texts['sub']} ({'변형' if language == 'ko' else 'variant'} {index})"
    for strategy in data["strategies"]:
        for option in strategy["options"]:
            for role in option["grid"]["base"]:
                varies = set(role.get("varies") or ())
                text = role["args"].get("--max-num-seqs")
                if text and "--max-num-seqs" not in varies:
                    seqs = int(text.split()[-1]) * (1 + index % 4)
                    role["args"]["--max-num-seqs"] = f"--max-num-seqs {seqs}"
                text = role["args"].get("--max-num-batched-tokens")
                if text and "--max-num-batched-tokens" not in varies:
                    role["args"]["--max-num-batched-tokens"] = f"--max-num-batched-tokens {256 * (1 + index % 3)}"
    return data


def generate_recipes(folder: Path, count: int) -> dict[Path, Recipe]:
    """`count` recipe files in `folder`, the shipped ones and variants of them, each with its
    recipe: the check that proves a variant valid gives it (a recipe is checked once, not again
    when its commands are counted or its pages written as plain text)."""
    folder.mkdir(parents=True)
    generated = {}
    for path in SHIPPED:
        shutil.copy(path, folder / path.name)
        generated[folder / path.name] = load(folder / path.name)
    shipped = [json.loads(p.read_text(encoding="utf-8")) for p in SHIPPED]
    for index in range(count - len(SHIPPED)):
        data = variant(shipped[index % len(shipped)], index)
        path = folder / f"{data['name']}.json"
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        recipe, problems = check_file(path)
        if problems or recipe is None:
            raise SystemExit(f"generated recipe {path.name} is not valid: {problems[0]}")
        generated[path] = recipe
    return generated


def directive_source(srcdir: Path, recipes: list[Path]) -> None:
    """The shipped guide pages and, per recipe, the page `make recipe-page` writes."""
    shutil.copytree(ROOT / "source", srcdir, ignore=shutil.ignore_patterns("recipes"))
    (srcdir / "recipes").mkdir()
    for path in recipes:
        name = path.stem
        shipped_page = ROOT / "source" / "recipes" / f"{name}.md"
        if not shipped_page.is_file():  # a variant: the page of the recipe it was made from, renamed
            origin = next(p.stem for p in SHIPPED if name.startswith(p.stem + "-b"))
            shipped_page = ROOT / "source" / "recipes" / f"{origin}.md"
        text = shipped_page.read_text(encoding="utf-8").replace(shipped_page.stem, name)
        (srcdir / "recipes" / f"{name}.md").write_text(text, encoding="utf-8")


def plain(text: str) -> str:
    return html.unescape(TAGS.sub("", text))


def cell(text: str) -> str:
    return plain(text).replace("|", "\\|").replace("\n", " ")


def code(text: str) -> str:
    return f"```bash\n{text}\n```\n"


def plain_header(recipe) -> str:
    texts = recipe.text["en"]
    facts = [
        ("Model", f"[{recipe.model}]({recipe.hf})"),
        ("Provider", recipe.provider),
        ("Precision", ", ".join(recipe.variants)),
        ("Attention", recipe.attn),
    ]
    length = context_length(recipe)
    if length:
        facts.append(("Context length", f"{length:,} tokens"))
    facts.append(("Verified strategies", plain(texts.tag)))
    rows = [
        f"| {s.label} | {t.label or t.target} | {t.npus} | {', '.join(t.skus)} | {t.verified} |"
        for s, t in recipe.targets()
    ]
    return "\n".join(
        [
            plain(texts.sub),
            "",
            " · ".join(b.text for b in recipe.badges),
            "",
            *(f"{name}\n: {value}\n" for name, value in facts),
            "| Strategy | Target | NPUs | SKU | Verified |",
            "|---|---|---|---|---|",
            *rows,
            "",
        ]
    )


def plain_install(recipe, versions: dict) -> str:
    return "\n".join(
        [
            "The host needs the RBLN Driver. Installing the RBLN Compiler (rebel-compiler) needs an RBLN Portal "
            "account. Compatible package versions are listed in the {doc}`installation matrix </install>`.",
            "",
            "Install the compiler:",
            "",
            code(
                f"pip install --extra-index-url {versions['rbln_index']} rebel-compiler=={versions['rebel-compiler']}"
            ),
            "Install the serving plugin, vllm-rbln, with the connectors for KV-cache transfer:",
            "",
            code(f'pip install --extra-index-url {versions["rbln_index"]} "vllm-rbln[kv_connectors]"'),
            "In short, once the package indexes are configured:",
            "",
            code(recipe.install_line),
        ]
    )


def plain_explorer(recipe) -> str:
    out = [plain(recipe.text["en"].strategy_note), ""]
    for strategy in recipe.strategies:
        out += [f"### {strategy.label}", "", f"Precision: {strategy.variant}", ""]
        for target in strategy.targets:
            out += [
                f"#### {strategy.label}: {target.label or target.target}",
                "",
                f"NPUs per server: {target.npus} · {', '.join(target.skus)} · verified {target.verified}",
                "",
            ]
            result = expand_selection(recipe, strategy, target, default_selection(target.grid))
            for command in result.commands:
                rank = "" if command.rank is None else f", rank {command.rank}"
                out += [f"{command.role}{rank}:", "", code(command.shell)]
            for step, (node, cmd) in enumerate(result.router, start=1):
                out += [f"Router step {step}: {node}", "", code(cmd)]
    return "\n".join(out)


def plain_catalogue(recipes: list) -> str:
    rows = [
        f"| {{doc}}`{r.name} </recipes/{r.name}>` | {r.provider} | {' · '.join(b.text for b in r.badges)} | "
        f"{', '.join(s.label for s in r.strategies)} | {', '.join(sorted({str(t.npus) for _s, t in r.targets()}))} | "
        f"{', '.join(sorted({k for _s, t in r.targets() for k in t.skus}))} | {max(t.verified for _s, t in r.targets())} |"
        for r in recipes
    ]
    return "\n".join(
        [
            "| Model | Provider | Facts | Strategies | NPUs | SKU | Verified |",
            "|---|---|---|---|---|---|---|",
            *rows,
            "",
        ]
    )


def plain_flags(recipes: list) -> str:
    from recipebook.reading import vocabulary

    users: dict[str, list[str]] = {}
    for recipe in recipes:
        for flag in flags_in_use(recipe):
            users.setdefault(flag, []).append(recipe.name)
    rows = [
        f"| `{flag}` | {cell(vocabulary.flag_help(flag) or '')} | "
        + ", ".join(f"{{doc}}`{n} </recipes/{n}>`" for n in sorted(users[flag], key=str.lower))
        + " |"
        for flag in sorted(users)
    ]
    return "\n".join(["| Flag | What it does (vLLM help) | Used by |", "|---|---|---|", *rows, ""])


def plain_rules(options: str) -> str:
    """The rules as the recipe-rules directive lists them: the numbered ones (each with the
    target other pages link, rule-N), or with :unnumbered: the others."""
    unnumbered = ":unnumbered:" in options
    out = []
    for statement in rule_statements.statements():
        if (statement.number is None) != unnumbered:
            continue
        if statement.number is not None:
            out += [f"(rule-{statement.number})=", f"**{statement.number}.** {statement.text}", ""]
        else:
            out += [f"- {statement.text}", ""]
    return "\n".join(out)


def plain_memory(argument: str, by_name: dict) -> str:
    """A recipe-memory figure as the role words it: RECIPE STRATEGY TARGET FIGURE [NAME=N ...]."""
    name, slug, target_name, figure, *what_if = argument.split()
    recipe = by_name[name]
    target = recipe.strategy(slug).target(target_name)
    options = {key.replace("-", "_"): int(value) for key, _sep, value in (w.partition("=") for w in what_if)}
    opening = page_model.page_of(recipe).target(slug, target_name).opening_commands()
    fit = memory.fit(recipe.facts, target.skus, opening, **options)
    field = {"kv-cache": "kv_cache_bytes", "weights": "weights_bytes", "free": "free_bytes"}[figure]
    return memory.gib(max(getattr(rank, field) for rank in fit.ranks))


def plain_results(recipe) -> str:
    """The recipe-results directive of a recipe without stored results (the site's results folder
    holds none for it): its sentence. Measured results would be a plot and a table, which the
    plain pages do not write: the bench says so instead of weighing a page against less text."""
    found, _wrong = stored_results.load(ROOT / "results", recipe.name)
    if found:
        raise SystemExit(f"bench/run.py: {recipe.name} has measured results: give plain_results their table and plot")
    return (
        "No results have been measured for this recipe yet, so this page shows no throughput or latency. Each "
        "explorer above shows the benchmark that measures its selection; python -m recipebook results add stores "
        "what it writes, and this section then plots it.\n"
    )


def plain_kubernetes_settings() -> str:
    """The operator's settings as the recipe-kubernetes-settings directive lists them: each name
    with its default (or the placeholder it leaves)."""
    return "".join(f"- `{s.name}`: {s.default or kubernetes.UNSET.get(s.name, '')}\n" for s in kubernetes.SETTINGS)


def plain_source(directive_src: Path, srcdir: Path, recipes: list, versions: dict) -> None:
    """The same pages with every recipe directive and role replaced by its plain-text output."""
    by_name = {r.name: r for r in recipes}
    without_recipe = {
        "recipe-catalogue": lambda _name, _options: plain_catalogue(recipes),
        "recipe-flags": lambda _name, _options: plain_flags(recipes),
        "recipe-rules": lambda _name, options: plain_rules(options),
        "recipe-settings": lambda _name, _options: settings_list() + "\n",
        "recipe-kubernetes-settings": lambda _name, _options: plain_kubernetes_settings(),
    }
    of_recipe = {
        "recipe-header": plain_header,
        "recipe-install": lambda r: plain_install(r, versions),
        "recipe-explorer": plain_explorer,
        "recipe-client": lambda r: "Once the server is up, send it a request:\n\n" + code(r.client),
        "recipe-results": plain_results,
    }

    def replace(page: Path) -> Callable[[re.Match], str]:
        def directive(match: re.Match) -> str:
            kind, name, options = match[1], match[2].strip(), match[3]
            if kind in without_recipe:
                return without_recipe[kind](name, options) + "\n"
            if kind not in of_recipe or name not in by_name:
                raise SystemExit(
                    f"bench/run.py: {page.relative_to(srcdir)}: no plain-text output for {match[0].splitlines()[0]!r}: "
                    "give plain_source one for this directive"
                )
            return of_recipe[kind](by_name[name]) + "\n"

        return directive

    def role(match: re.Match) -> str:
        if match[1] != "recipe-memory":
            raise SystemExit(f"bench/run.py: no plain-text output for the role {match[0]!r}: give plain_source one")
        return plain_memory(match[2], by_name)

    shutil.copytree(directive_src, srcdir)
    for page in srcdir.rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        page.write_text(ROLE.sub(role, DIRECTIVE.sub(replace(page), text)), encoding="utf-8")
    leftover = [p.name for p in srcdir.rglob("*.md") if "{recipe-" in p.read_text(encoding="utf-8")]
    if leftover:
        raise SystemExit(f"bench/run.py: recipe directives left in the plain pages: {', '.join(leftover)}")


def plain_conf(confdir: Path) -> None:
    """The site's conf.py without the recipebook extension (and its sidebar template); the
    not-found page, which the extension sets up, is still rendered by sphinx-notfound-page."""
    confdir.mkdir(parents=True)
    (confdir / "conf.py").write_text(
        "from pathlib import Path\n"
        f"__file__ = {str(ROOT / 'conf.py')!r}\n"
        "exec(compile(Path(__file__).read_text(), __file__, 'exec'))\n"
        "extensions = [e for e in extensions if e != 'recipebook_sphinx'] + ['notfound.extension']\n"
        "html_sidebars = {k: [s for s in v if s != 'sidebar/language.html'] for k, v in html_sidebars.items()}\n"
        "locale_dirs = []\n",
        encoding="utf-8",
    )


# -- measuring -------------------------------------------------------------------------


# Runs a command and writes the peak of its process tree to the file it is given. The bench's own
# process has grown by then, and a child started from it counts the parent's size in its own peak
# (Linux adds the memory a process had before exec to ru_maxrss, and a vfork'ed child's is its
# parent's): started from this small launcher instead, a step's figure is its own.
LAUNCHER = """import os, subprocess, sys
child = subprocess.Popen(sys.argv[2:])
_pid, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def measured(command: list[str], step: str, *, cwd: Path = ROOT, env: dict | None = None) -> tuple[float, str]:
    """Run a command to its end: its seconds and its error output (its other output is
    dropped). The largest resident size any one process of its tree reached (wait4's ru_maxrss:
    the process and every child it waited for, read by LAUNCHER) is kept under `step` in PEAKS,
    the largest of the step's runs. A failure stops the bench with the command and the end of
    its errors."""
    with tempfile.TemporaryDirectory(prefix="bench-step-") as scratch:
        peak, errors = Path(scratch) / "peak", Path(scratch) / "errors"
        with errors.open("wb") as stderr:
            start = time.perf_counter()
            launched = [sys.executable, "-c", LAUNCHER, str(peak), *map(str, command)]
            result = subprocess.run(launched, cwd=cwd, env=env or ENV, stdout=subprocess.DEVNULL, stderr=stderr)
            seconds = time.perf_counter() - start
        text = errors.read_text(encoding="utf-8", errors="replace")
        kib = int(peak.read_text()) if peak.exists() else 0
    PEAKS[step] = max(PEAKS.get(step, 0), kib * 1024)  # ru_maxrss is in KiB on Linux
    if result.returncode != 0:
        raise SystemExit(f"bench/run.py: {step} failed: {' '.join(map(str, command))}\n{text[-4000:]}")
    return seconds, text


def self_peak() -> int:
    """The largest resident size of this process so far (bytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def sphinx(
    srcdir: Path, out: Path, *options: str, step: str, confdir: Path = ROOT, fresh: bool = True, tree: str = ""
) -> float:
    """An English build into out/html and out/doctrees (with `tree`, the language tree of a
    bilingual build: out/html/TREE and out/doctrees/TREE, as :func:`bilingual` lays them out)."""
    if fresh and out.exists():
        shutil.rmtree(out)
    html_dir, doctrees = out / "html" / tree, out / "doctrees" / tree
    command = [sys.executable, "-m", "sphinx", "-q", "-W", "--keep-going", "-b", "html", "-c", str(confdir)]
    command += ["-d", str(doctrees), "-D", "language=en", *options, str(srcdir), str(html_dir)]
    return measured(command, step)[0]


def profile_build(srcdir: Path, out: Path, *options: str, step: str, confdir: Path = ROOT) -> dict:
    """One -j 1 build under cProfile, warnings as errors: its seconds (wall, as measured() gives
    them, and profiled) and, for the extension's code (under _ext/), the time of each entry point
    Sphinx or docutils calls (a function's time from callers outside _ext/, so the figures do not
    count a call twice)."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    data = out / "profile"
    command = [sys.executable, "-m", "cProfile", "-o", str(data), "-m", "sphinx", "-q", "-W", "--keep-going"]
    command += ["-b", "html", "-c", str(confdir), "-d", str(out / "doctrees"), "-D", "language=en", "-j", "1"]
    command += [*options, str(srcdir), str(out / "html")]
    return profile_figures(data, measured(command, step)[0])


def profile_figures(data: Path, wall: float) -> dict:
    """The figures of a build profiled into `data` (cProfile's file) that took `wall` seconds."""
    import pstats

    stats = pstats.Stats(str(data))
    ours = str(ROOT / "_ext")
    entries: dict[str, float] = {}

    def outside(caller: tuple[str, int, str]) -> bool:
        # a built-in (str.join of a generator) or Jinja (a template our code renders) passes
        # a call on: only Sphinx and docutils calling the extension count
        return not caller[0].startswith(ours) and caller[0] != "~" and "jinja2" not in caller[0]

    for (file, line, name), (_cc, _nc, _tt, _ct, callers) in stats.stats.items():  # type: ignore[attr-defined]
        if not file.startswith(ours) or "/templates/" in file:  # the theme's page template is Sphinx's work
            continue
        outside_time = sum(ct for caller, (_n, _c, _t, ct) in callers.items() if outside(caller))
        if outside_time > 0:
            where = f"{Path(file).relative_to(ours)}:{line} {name}"
            entries[where] = entries.get(where, 0.0) + outside_time
    top = sorted(entries.items(), key=lambda item: -item[1])
    return {"seconds": stats.total_tt, "wall": wall, "ours": sum(entries.values()), "top": top[:10]}  # type: ignore[attr-defined]


def machine() -> str:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor() or "unknown CPU",
    )
    mem_kb = next(
        int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")
    )
    import sphinx as sphinx_module

    return (
        f"{len(os.sched_getaffinity(0))} CPUs (nproc), {cpu}, {mem_kb / 1024 / 1024:.1f} GiB RAM; "
        f"Python {platform.python_version()}, Sphinx {sphinx_module.__version__}; "
        f"{datetime.date.today().isoformat()}"
    )


def page_weight(full_html: Path, recommended_html: Path, recipe: Recipe) -> dict:
    memo = Memo()
    name = recipe.name
    shipped = (full_html / "recipes" / f"{name}.html").read_bytes()
    rec_text = (recommended_html / "recipes" / f"{name}.html").read_text(encoding="utf-8")
    soup = BeautifulSoup(rec_text, "html.parser")
    every = len(rec_text.encode())
    selections = 0
    for form in soup.select("form.rb-grid"):
        strategy, target = form["data-strategy"], form["data-target"]
        area = len(str(form.select_one(".rb-cmds")).encode())
        opening = expand(recipe, strategy, target, memo=memo)

        def text_bytes(result) -> int:
            texts = [c.shell for c in result.commands] + [cmd for _n, cmd in result.router]
            return sum(len(html.escape(t, quote=False).encode()) for t in texts)

        shown = text_bytes(opening)
        grid_total = 0
        for result in matrix(recipe, memo):
            if (result.strategy, result.target) == (strategy, target):
                grid_total += area - shown + text_bytes(result)
                selections += 1
        every += grid_total - area
    return {
        "page": name,
        "selections": selections,
        "shipped": len(shipped),
        "shipped_gz": len(gzip.compress(shipped, 9)),
        "recommended": len(rec_text.encode()),
        "recommended_gz": len(gzip.compress(rec_text.encode(), 9)),
        "every": every,
    }


def engine(paths: list[Path], repeat: int) -> dict:
    """Validate every recipe; then, from recipes read afresh (nothing built yet), build and
    prove every page model (line tables, serving groups, placeholders) and expand every
    selection from it (every command's text)."""

    def run() -> dict:
        forget()  # each run starts as a new process would: nothing remembered from the last
        start = time.perf_counter()
        for path in paths:
            _recipe, problems = check_file(path)
            assert not problems, problems
        validated = time.perf_counter()
        recipes = [Recipe.from_json(json.loads(p.read_text(encoding="utf-8")), str(p)) for p in paths]
        forget()
        read = time.perf_counter()
        targets = 0
        memo = Memo()  # the page models, for the expansion after them
        for recipe in recipes:
            model = page_model.page_of(recipe, memo)
            for target in model.targets:
                assert not target.wrong, target.wrong
                targets += 1
        modelled = time.perf_counter()
        count = 0
        for recipe in recipes:
            for result in matrix(recipe, memo):
                for command in result.commands:
                    command.shell  # noqa: B018 - the text is the work
                count += 1
        expanded = time.perf_counter()
        return {
            "validate": validated - start,
            "expand": expanded - modelled,
            "explorers_time": modelled - read,
            "selections": count,
            "explorers": targets,
            "recipes": len(recipes),
        }

    runs = [run() for _ in range(repeat)]
    return min(runs, key=lambda r: r["validate"] + r["expand"] + r["explorers_time"])


def tree_size(folder: Path) -> dict:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return {"files": len(files), "bytes": sum(p.stat().st_size for p in files)}


def search_index_bytes(tree: Path) -> dict:
    """What a language's search downloads before a query (its index, the language's stemmer and
    glossary, the scorer's data) and its per-page summary files (_search/, fetched ten a query)."""
    first = [
        tree / "searchindex.js",
        tree / "_static" / "language_data.js",
        tree / "_static" / "recipebook-search-data.js",
    ]
    summaries = list((tree / "_search").rglob("*.json")) if (tree / "_search").is_dir() else []
    return {
        "index": sum(f.stat().st_size for f in first if f.is_file()),
        "summaries": sum(f.stat().st_size for f in summaries),
        "largest_summary": max((f.stat().st_size for f in summaries), default=0),
    }


def output_sizes(html: Path) -> dict:
    """Files and bytes of the published site: api/ and the language trees apart, and each
    language's search index."""
    sizes = {"api": tree_size(html / "api") if (html / "api").exists() else {"files": 0, "bytes": 0}}
    trees = [tree_size(html / lang) for lang in ("en", "ko")]
    sizes["trees"] = {"files": sum(t["files"] for t in trees), "bytes": sum(t["bytes"] for t in trees)}
    sizes["search"] = {lang: search_index_bytes(html / lang) for lang in ("en", "ko")}
    return sizes


def bilingual(
    srcdir: Path, out: Path, recipes: Path, *options: str, step: str, profile: Path | None = None
) -> tuple[float, dict[str, float]]:
    """Both languages side by side, as `make html` builds them, with the site-level files: the
    seconds of the two, and each language's own. With `profile`, the English build runs at -j 1
    under cProfile, its data written to that file (--quick: the profiled build, see QUICK)."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    commands = []
    for language in ("en", "ko"):
        profiled = profile is not None and language == "en"
        command = [sys.executable, *(["-m", "cProfile", "-o", str(profile)] if profiled else [])]
        command += ["-m", "sphinx", "-q", "-W", "--keep-going", "-b", "html", "-c", str(ROOT)]
        command += ["-d", str(out / "doctrees" / language), "-D", f"language={language}"]
        command += ["-D", f"recipebook_dir={recipes}", *options, *(["-j", "1"] if profiled else [])]
        command += [str(srcdir), str(out / "html" / language)]
        commands.append(command)
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(len(commands)) as pool:
        each = [seconds for seconds, _errors in pool.map(lambda command: measured(command, step), commands)]
    return time.perf_counter() - start, dict(zip(("en", "ko"), each, strict=True))


def curve_step(count: int) -> str:
    return f"{count}-recipe site, both languages side by side"


def curve_row(
    folder: Path,
    count: int,
    *options: str,
    site: tuple[Path, dict[Path, Recipe]] | None = None,
    profile: Path | None = None,
) -> tuple[dict, dict]:
    """The growth curve's row of `count` recipes: a bilingual generated site built once into
    folder/out (its recipes and pages generated in `folder`, or those of `site`: the pages and
    the recipes by path, as generate_recipes gives them), its figures, and each language's seconds."""
    if site is None:
        generated = generate_recipes(folder / "recipes", count)
        directive_source(folder / "src", list(generated))
        site = folder / "src", generated
    srcdir, generated = site
    seconds, each = bilingual(
        srcdir, folder / "out", next(iter(generated)).parent, *options, step=curve_step(count), profile=profile
    )
    selections = sum(1 for recipe in generated.values() for _ in matrix(recipe))
    sizes = output_sizes(folder / "out" / "html")
    return {"recipes": count, "selections": selections, "seconds": seconds, **sizes}, each


# -- portals of bench/portal.py: many realistic recipes, and many large ones --------------------


def portal_build(work: Path, count: int, large: tuple[int, int] | None = None) -> dict:
    """A generated portal (bench/portal.py) of `count` recipes, built as `make html` builds it in
    its project copy (both languages side by side): seconds, recipes, targets and output bytes."""
    project = work / f"portal-{count}{'-large' if large else ''}"
    shutil.rmtree(project, ignore_errors=True)
    # not checked here: make html validates every recipe (once) and stops on an error; the
    # targets are counted from the files as written (a large recipe's check takes seconds)
    portal.write(project, count, large=large, check=False)
    make_env = {k: v for k, v in ENV.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "PYTHONPATH")}
    kind = f"{count} recipes of {large[0]} tabs of {large[1]} targets" if large else f"{count} recipes"
    seconds, _errors = measured(
        ["make", "-s", "html", "SPHINXOPTS="], f"portal of {kind}: make html", cwd=project, env=make_env
    )
    figures = _portal_figures(project, count, seconds, large)
    shutil.rmtree(project, ignore_errors=True)
    return figures


def portal_built(folder: Path) -> dict:
    """The figures of a portal another run built (--portal-built): its project copy in
    folder/project, built there by `make html`, which that run measured as :func:`measured` does
    (folder/build.json: its seconds and the peak of its processes, kept here as this bench's step)."""
    project = folder / "project"
    measured_build = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    recipes = len(_portal_recipes(project))
    PEAKS[f"portal of {recipes} recipes: make html"] = measured_build["peak"]
    return _portal_figures(project, recipes, measured_build["seconds"], None)


def _portal_recipes(project: Path) -> list[Path]:
    return sorted(p for p in (project / "recipes").glob("*.json") if p.name != "schema.json")


def _portal_figures(project: Path, recipes: int, seconds: float, large: tuple[int, int] | None) -> dict:
    """A built portal's figures: its recipes, their targets (counted from the files as written),
    the build's seconds, its output bytes and its search files."""
    paths = _portal_recipes(project)
    targets = sum(1 for p in paths for _s, _t in Recipe.from_json(json.loads(p.read_bytes()), str(p)).targets())
    sizes = output_sizes(project / "_build" / "html")
    return {
        "recipes": recipes,
        "targets": targets,
        "seconds": seconds,
        "bytes": sizes["api"]["bytes"] + sizes["trees"]["bytes"],
        "large": large,
        "search": sizes["search"],
    }


def portals(
    work: Path, count: int, large_counts: list[int], shape: tuple[int, int], log, built: Path | None = None
) -> dict:
    """The portal of `count` recipes of the shipped kind (ms per recipe), or the portal another
    run built in `built` (:func:`portal_built`), and portals of large recipes (`shape`: tabs,
    targets each) at each of `large_counts` (s and bytes per target)."""
    found: dict = {"shipped_kind": None, "large": []}
    if built is not None:
        found["shipped_kind"] = portal_built(built)
        count = found["shipped_kind"]["recipes"]
        log(f"portal of {count}, built by another run: {found['shipped_kind']['seconds']:.1f} s")
    elif count:
        found["shipped_kind"] = portal_build(work, count)
        log(f"portal of {count}: {found['shipped_kind']['seconds']:.1f} s")
    for n in large_counts:
        found["large"].append(portal_build(work, n, large=shape))
        log(f"large portal of {n}: {found['large'][-1]['seconds']:.1f} s")
    return found


def search_line(search: dict) -> str:
    """Each language's search index (what a reader downloads before the first query) and the
    summary files of all its pages (a query fetches ten of them)."""
    return " / ".join(
        f"{kib(search[lang]['index'])} (+ {kib(search[lang]['summaries'])} of summaries)" for lang in ("en", "ko")
    )


def portal_lines(f: dict) -> list[str]:
    """The portals' table: per recipe for the shipped kind, per target for the large ones; the last
    row's ratio against the first says whether the cost grows with recipes, not faster."""
    p = f["shipped_kind"]
    lines = []
    if p:
        lines += [
            "",
            f"Portal of {p['recipes']} recipes of the shipped kind (bench/portal.py, both languages): "
            f"{p['seconds']:.1f} s, {1000 * p['seconds'] / p['recipes']:.0f} ms a recipe (goal: 150 ms or less); "
            f"search index en / ko: {search_line(p['search'])}.",
        ]
    lines += [
        "",
        "| Large-recipe portal | Targets | Build | s / target | bytes / target | Search index en / ko |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    first = f["large"][0] if f["large"] else None
    for row in f["large"]:
        per_s, per_b = row["seconds"] / row["targets"], row["bytes"] / row["targets"]
        ratio = ""
        if first is not None and row is not first:
            ratio = (
                f" (x{per_s / (first['seconds'] / first['targets']):.2f},"
                f" x{per_b / (first['bytes'] / first['targets']):.2f} of {first['recipes']})"
            )
        lines.append(
            f"| {row['recipes']} recipes | {row['targets']:,} | {row['seconds']:.1f} s | {per_s:.3f}{ratio} "
            f"| {kib(per_b)} | {search_line(row['search'])} |"
        )
    return lines


def make_html(build: Path, *variables: str, step: str = "shipped site: make html") -> float:
    make_env = {k: v for k, v in ENV.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    shutil.rmtree(build, ignore_errors=True)
    return measured(["make", "-s", "html", f"BUILD={build}", *variables], step, env=make_env)[0]


def versions_of_conf() -> dict:
    return json.loads(
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import runpy, json; c = runpy.run_path('conf.py'); print(json.dumps(c['recipebook_versions']))",
            ],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env=ENV,
        ).stdout
    )


# --quick: every step at the smallest sizes, each once (make test runs it to see the bench run to
# its end; the figures mean nothing): the shipped recipes and one variant, a portal of three
# recipes, a large portal of three recipes of two tabs of two targets. The growth curve's one site
# is the generated site's size, so that its one build of each language serves both (main: each page
# set once): its Korean build at -j 2, its English build at -j 1 under cProfile
QUICK = {"recipes": len(SHIPPED) + 1, "curve": str(len(SHIPPED) + 1), "repeat": 1, "portal": 3, "large": "3"}
QUICK_SHAPE = "2,2"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipes", type=int, default=50, help="recipes in the generated site (default 50)")
    parser.add_argument(
        "--curve", default="10,50,200", help="recipe counts of the bilingual growth curve (default 10,50,200)"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=2,
        help="builds per figure; the fastest counts (default 2; at least 3 for the interleaved extension rounds and the engine)",
    )
    parser.add_argument(
        "--portal", type=int, default=200, help="recipes in the generated portal (default 200; 0: none)"
    )
    parser.add_argument(
        "--large", default="10,100", help="recipe counts of the large-recipe portals (default 10,100; empty: none)"
    )
    parser.add_argument(
        "--large-shape", default="20,10", help="tabs and targets per tab of a large recipe (default 20,10)"
    )
    parser.add_argument(
        "--portal-built",
        type=Path,
        metavar="DIR",
        help="the portal of the shipped kind is the one another run built and measured in DIR (DIR/project, built "
        "by make html; DIR/build.json, its seconds and peak): make test's quick run reads the test suite's portal "
        "(tests/conftest.py) instead of building one of --portal recipes",
    )
    parser.add_argument("--only-portals", action="store_true", help="measure the portals only")
    parser.add_argument(
        "--quick", action="store_true", help="every step at the smallest sizes, once (a run to the end, not figures)"
    )
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (default: a temporary folder)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--markdown", metavar="FILE", help="also write the table as a Markdown document")
    args = parser.parse_args(argv)
    if args.quick:
        parser.set_defaults(**QUICK, large_shape=QUICK_SHAPE)
        args = parser.parse_args(argv)
    rounds = args.repeat if args.quick else max(args.repeat, 3)  # the interleaved rounds and the engine's runs
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="recipebook-bench-"))
    if work.exists() and args.keep:
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    figures: dict = {"machine": machine(), "recipes": args.recipes, "quick": args.quick}
    log = lambda text: print(f"# {text}", file=sys.stderr, flush=True)  # noqa: E731
    try:
        log(f"working in {work}")
        shape = tuple(int(n) for n in args.large_shape.split(","))
        large_counts = [int(n) for n in args.large.split(",") if n.strip()]
        figures["portals"] = portals(work, args.portal, large_counts, shape, log, args.portal_built)
        if args.only_portals:
            figures["peaks"] = dict(PEAKS)
            table = "\n".join(portal_lines(figures["portals"]) + peak_lines(figures["peaks"]))
            print(table)
            if args.json:
                Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
            return 0
        # the shipped site as make html builds it: languages side by side, then one after the other
        if not args.quick:
            make_html(work / "shipped")  # warm-up: catalogs compiled, caches filled; not counted
        side, turn = [], []
        in_turn = "shipped site: make html LANGUAGE_JOBS=1"
        shared: dict[str, str] = {}  # --quick: a figure -> the step that made its build
        for _ in range(args.repeat):  # alternate, so a noisy stretch does not favour one
            turn.append(make_html(work / "sequential", "LANGUAGE_JOBS=1", step=in_turn))
            if not args.quick:
                side.append(make_html(work / "shipped"))
        shipped = work / "shipped"
        if args.quick:  # the same site, byte for byte (tests/site/test_reproducible.py): built once
            side, shipped, shared["shipped_build"] = turn, work / "sequential", in_turn
        figures["shipped_build"], figures["shipped_sequential"] = min(side), min(turn)
        figures["shipped_output"] = output_sizes(shipped / "html")
        shipped_recipes = [load(p) for p in SHIPPED]  # their selections here, their page weights below
        figures["shipped_selections"] = sum(1 for recipe in shipped_recipes for _ in matrix(recipe))
        log(
            f"shipped site: {figures['shipped_build']:.1f} s side by side, {figures['shipped_sequential']:.1f} s in turn"
        )

        # generated site, directive and plain pages
        generated = generate_recipes(work / "recipes", args.recipes)
        paths, recipes = list(generated), list(generated.values())
        option = ["-D", f"recipebook_dir={work / 'recipes'}"]
        directive_source(work / "src-directives", paths)
        plain_source(work / "src-directives", work / "src-plain", recipes, versions_of_conf())
        plain_conf(work / "conf-plain")

        site = f"{args.recipes}-recipe site, English"
        full = lambda: sphinx(work / "src-directives", work / "out-j1", *option, "-j", "1", step=f"{site}, -j 1")  # noqa: E731
        plain = lambda: sphinx(  # noqa: E731
            work / "src-plain", work / "out-plain", "-j", "1", confdir=work / "conf-plain", step=f"{site}, plain pages"
        )
        both = lambda: sphinx(work / "src-directives", work / "out-j2", *option, "-j", "2", step=f"{site}, -j 2")  # noqa: E731
        profiled = f"{site}, -j 1 under cProfile", f"{site}, plain pages under cProfile"
        counts = [int(n) for n in args.curve.split(",") if n.strip()]
        runs: dict[str, list[float]] = {"gen_build_j1": [], "plain_build_j1": [], "gen_build_j2": []}
        rows: dict[int, dict] = {}  # rows of the growth curve built here (--quick), by recipe count
        curve_out: Path | None = None  # --quick: the growth curve's build of this site (see QUICK)
        if not args.quick:
            for _ in range(rounds):  # interleaved: the ratios compare builds from the same stretch
                for key, measure in (("gen_build_j1", full), ("plain_build_j1", plain), ("gen_build_j2", both)):
                    runs[key].append(measure())
        elif args.recipes in counts:
            # --quick builds a page set once (see QUICK): the growth curve's site of this size is this
            # site, its languages side by side; its Korean build, at -j 2, is the -j 2 figure, its
            # English build, at -j 1 under cProfile, the profiled build (below)
            curve_out = work / f"curve-{args.recipes}" / "out"
            rows[args.recipes], each = curve_row(
                curve_out.parent,
                args.recipes,
                "-j",
                "2",
                site=(work / "src-directives", generated),
                profile=curve_out / "profile",
            )
            runs["gen_build_j2"].append(each["ko"])
            shared["gen_build_j2"] = curve_step(args.recipes)
        else:
            runs["gen_build_j2"].append(both())

        # where the extension's time goes: both builds profiled once
        figures["profile"] = {
            "directives": profile_figures(curve_out / "profile", each["en"])
            if curve_out is not None
            else profile_build(work / "src-directives", work / "profile-directives", *option, step=profiled[0]),
            "plain": profile_build(
                work / "src-plain", work / "profile-plain", confdir=work / "conf-plain", step=profiled[1]
            ),
        }
        log(
            f"profiled: {figures['profile']['directives']['seconds']:.1f} s vs {figures['profile']['plain']['seconds']:.1f} s"
        )
        if args.quick:  # the profiled builds are the -j 1 builds (see QUICK)
            runs["gen_build_j1"].append(figures["profile"]["directives"]["wall"])
            runs["plain_build_j1"].append(figures["profile"]["plain"]["wall"])
            shared.update(gen_build_j1=profiled[0] if curve_out is None else curve_step(args.recipes))
            shared.update(plain_build_j1=profiled[1])
            figures["shared"] = dict(sorted(shared.items()))
        figures.update({key: min(times) for key, times in runs.items()})
        figures["extension_spread"] = [
            round(g / p, 2) for g, p in zip(runs["gen_build_j1"], runs["plain_build_j1"], strict=True)
        ]
        log(f"{args.recipes}-recipe site, -j 1: {figures['gen_build_j1']:.1f} s")
        log(f"plain pages, -j 1: {figures['plain_build_j1']:.1f} s; per round {figures['extension_spread']}")

        # rebuilds of the built site (out-j1 holds the last full build of the rounds above, --quick's
        # profiled build its one -j 1 build: the growth curve's English tree, or profile-directives):
        # nothing changed, one recipe touched
        built = work / ("profile-directives" if args.quick else "out-j1") if curve_out is None else curve_out
        tree = "" if curve_out is None else "en"
        unchanged, touched_runs = [], []
        touched = work / "recipes" / paths[len(paths) // 2].name
        rebuild = lambda: sphinx(  # noqa: E731
            work / "src-directives", built, *option, "-j", "1", fresh=False, step=f"{site}, rebuilds", tree=tree
        )
        for _ in range(args.repeat):
            unchanged.append(rebuild())
            html_files = list((built / "html" / tree).rglob("*.html"))
            before = {p: p.stat().st_mtime_ns for p in html_files}
            os.utime(touched, (time.time() + 1, time.time() + 1))
            touched_runs.append(rebuild())
            figures["incremental_pages"] = sum(p.stat().st_mtime_ns != before[p] for p in html_files)
        figures["rebuild_unchanged"] = min(unchanged)
        figures["incremental"] = min(touched_runs)
        figures["incremental_recipe"] = touched.name

        # engine
        figures["engine"] = engine(paths, rounds)
        PEAKS["the bench's own process (the engine figures, in process)"] = self_peak()
        log(f"engine: {figures['engine']}")

        # page weight, English recipe pages of the shipped site
        recommended = "shipped site, English, recipebook_render=recommended"
        sphinx(ROOT / "source", work / "recommended", "-D", "recipebook_render=recommended", step=recommended)
        figures["weight"] = [
            page_weight(shipped / "html" / "en", work / "recommended" / "html", recipe) for recipe in shipped_recipes
        ]

        # growth: bilingual generated sites of several sizes, built once each
        figures["curve"] = []
        for count in counts:
            folder = work / f"curve-{count}"
            row = rows[count] if count in rows else curve_row(folder, count)[0]
            figures["curve"].append(row)
            log(f"curve {count}: {row['seconds']:.1f} s, {row['api']} {row['trees']}")
            if not args.quick:  # the quick run's site is small, and make test reads what it built
                shutil.rmtree(folder, ignore_errors=True)
        figures["peaks"] = dict(PEAKS)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    table = report(figures)
    print(table)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    if args.markdown:
        write_markdown(table, Path(args.markdown))
    return 0


def peak_lines(peaks: dict[str, int]) -> list[str]:
    """Peak memory per process: for each step, the largest resident size of any one process."""
    return [
        "",
        "Peak memory per process: for each step, the largest resident size any one of its processes reached "
        "(ru_maxrss of its process tree; make html: the validation and each language's sphinx-build).",
        "",
        "| Step | Peak resident size of one process |",
        "| --- | --- |",
        *(f"| {step} | {kib(size)} |" for step, size in peaks.items()),
    ]


def kib(n: float) -> str:
    return f"{n / 1024:,.0f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:,.1f} MiB"


def report(f: dict) -> str:
    e = f["engine"]
    explorer_rate = e["selections"] / e["explorers_time"]
    expand_rate = e["selections"] / e["expand"]
    both = e["expand"] + e["explorers_time"]
    shipped = f["shipped_output"]
    lines = [
        f"Machine: {f['machine']}",
        "",
        "| Figure | Before (issue 18) | Now | Target |",
        "| --- | --- | --- | --- |",
        f"| Engine: validate {e['recipes']} recipes (every rule; rule 12 builds the line tables the page models "
        f"reuse) | 0.27 s (5.4 ms a recipe) | "
        f"{e['validate']:.2f} s ({1000 * e['validate'] / e['recipes']:.1f} ms a recipe) | ≤ 5 ms a recipe |",
        f"| Engine: validate + page models, {e['recipes']} recipes (what a build's engine work starts with) | "
        f"1.07 s | {e['validate'] + e['explorers_time']:.2f} s | |",
        f"| Engine: build and prove {e['explorers']} page models ({e['selections']:,} selections) | 0.80 s "
        f"(10,074 selections/s) | {e['explorers_time']:.2f} s ({explorer_rate:,.0f} selections/s) | |",
        f"| Engine: expand all {e['selections']:,} selections from the models (every command's text) | 0.69 s "
        f"(11,703 selections/s) | {e['expand']:.2f} s ({expand_rate:,.0f} selections/s) | |",
        f"| Engine: expand + explorers | 5,414–7,874 selections/s | {e['selections'] / both:,.0f} selections/s "
        f"({both:.2f} s) | ≥ 20,000 selections/s (≤ 0.4 s) |",
        f"| Extension cost: {f['recipes']}-recipe site vs the same pages as plain text, -j 1 | 1.46x–1.52x | "
        f"{f['gen_build_j1'] / f['plain_build_j1']:.2f}x ({f['gen_build_j1']:.1f} s vs {f['plain_build_j1']:.1f} s; "
        f"rounds {', '.join(f'{r:.2f}x' for r in f.get('extension_spread', []))}) | ≤ 1.10x |",
        f"| `make html`, shipped site: both languages at once vs one after the other | 0.57x | "
        f"{f['shipped_build'] / f['shipped_sequential']:.2f}x ({f['shipped_build']:.1f} s vs "
        f"{f['shipped_sequential']:.1f} s) | ≤ 0.65x |",
        f"| -j 2 against -j 1, one language ({f['recipes']} recipes) | 0.96x speed-up | "
        f"{f['gen_build_j1'] / f['gen_build_j2']:.2f}x speed-up ({f['gen_build_j2']:.1f} s vs "
        f"{f['gen_build_j1']:.1f} s) | report |",
        f"| Rebuild after touching one recipe ({f['incremental_pages']} pages rewritten) vs a rebuild with nothing "
        f"changed | 0.88x | {f['incremental'] / f['rebuild_unchanged']:.2f}x ({f['incremental']:.1f} s vs "
        f"{f['rebuild_unchanged']:.1f} s) | ≤ 1.15x |",
        f"| Output of the shipped site ({f['shipped_selections']} selections): api/ vs both language trees | "
        f"api/ 148 KiB in 45 files vs 1.6 MiB | api/ {kib(shipped['api']['bytes'])} in {shipped['api']['files']} "
        f"files vs {kib(shipped['trees']['bytes'])} in {shipped['trees']['files']} files | api/ ≤ the trees |",
    ]
    for w in f["weight"]:
        lines.append(
            f"| Page weight, {w['page']} ({w['selections']} selections) | | {w['shipped'] / 1024:.1f} KiB "
            f"({w['shipped_gz'] / 1024:.1f} KiB gzip), {w['shipped'] / w['recommended']:.2f}x the recommended-only "
            f"page | ≤ 1.25x |"
        )
    if f.get("shared"):
        lines += [
            "",
            "--quick builds each page set once: "
            + "; ".join(f"{figure} is a build of the step {step!r}" for figure, step in f["shared"].items())
            + ".",
        ]
    if "profile" in f:
        d, pl = f["profile"]["directives"], f["profile"]["plain"]
        lines += [
            "",
            f"Where the extension's time goes: one -j 1 build of each under cProfile ({d['seconds']:.1f} s vs "
            f"{pl['seconds']:.1f} s, {d['seconds'] / pl['seconds']:.2f}x); the extension's own code "
            f"{d['ours']:.1f} s, the rest is Sphinx and docutils working on the larger pages. Its entry points:",
            "",
            "| Entry point (under _ext/) | Seconds | Share of the build |",
            "| --- | --- | --- |",
            *(f"| `{name}` | {seconds:.2f} | {100 * seconds / d['seconds']:.1f} % |" for name, seconds in d["top"]),
        ]
    lines += [
        "",
        "Growth: generated bilingual sites (both languages side by side, site-level files included).",
        "",
        "| Recipes | Selections | Build | Per recipe | api/ files | api/ bytes | Trees' files | Trees' bytes "
        "| Search index en / ko |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for c in f["curve"]:
        lines.append(
            f"| {c['recipes']} | {c['selections']:,} | {c['seconds']:.1f} s | {1000 * c['seconds'] / c['recipes']:.0f} ms "
            f"| {c['api']['files']:,} | {kib(c['api']['bytes'])} | {c['trees']['files']:,} | {kib(c['trees']['bytes'])} "
            f"| {search_line(c['search'])} |"
        )
    if "portals" in f:
        lines += portal_lines(f["portals"])
    lines += peak_lines(f.get("peaks", {}))
    return "\n".join(lines)


def write_markdown(table: str, path: Path) -> None:
    """The table as a document of its own (``make bench``: _build/bench.md)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# Benchmarks (make bench)\n\n{table}\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
