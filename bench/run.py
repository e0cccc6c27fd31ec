"""Benchmarks of the build and the engine: `make bench` (or python bench/run.py).

Everything is measured in one run on this machine, and printed as a Markdown table (the
README's "Benchmarks" section is a copy of it). Ratios compare figures of the same run.

- Shipped site: `make html` into a fresh folder (both languages, -j auto, site files).
- Generated site: 50 recipes, the 2 shipped ones and 48 variants of them (renamed,
  with changed values), each with the page `make recipe-page` writes, plus the shipped
  guide pages; English, -j 1, fresh folders, warnings as errors.
- Extension cost: the same 50-recipe site with every recipe directive replaced by
  its plain-text output (header facts as text and a table, the install and client
  commands, and per target the commands and router steps of the selection the page opens
  on, as code blocks; the catalogue and the flags table as Markdown tables), built
  without the recipebook extension. Ratio: full build time / plain build time.
- Incremental: touch one recipe file of the built 50-recipe site, rebuild; time, and
  its share of the full build.
- Parallel: the 50-recipe site with -j 2 against -j 1.
- Engine: validate all 50 recipes and expand every offered selection (every command's
  shell text), in process; selections per second.
- Page weight (English recipe pages): the shipped page against the page built with
  recipebook_render=recommended (only the selection it opens on), and against a page
  that would carry every selection in full. That last one is summed, not built: the
  recommended-only page, with each grid's command area (its measured HTML) repeated once
  per offered selection, the opening selection's command text swapped for that
  selection's (HTML-escaped, commands and router steps).
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import html
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "_ext"))

from bs4 import BeautifulSoup  # noqa: E402

from recipebook import check_file, expand, load, matrix  # noqa: E402
from recipebook.expansion import default_selection, expand_selection  # noqa: E402
from recipebook.view import context_length, flags_in_use  # noqa: E402
from recipebook_sphinx import newpage  # noqa: E402

SHIPPED = sorted(p for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json")
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "_ext"), "LANG": "C.UTF-8"}
DIRECTIVE = re.compile(r"```\{(recipe-[a-z]+)\}[ \t]*([^\n]*)\n```\n")
TAGS = re.compile(r"<[^>]+>")


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


def generate_recipes(folder: Path, count: int) -> list[Path]:
    folder.mkdir(parents=True)
    paths = []
    for path in SHIPPED:
        shutil.copy(path, folder / path.name)
        paths.append(folder / path.name)
    shipped = [json.loads(p.read_text(encoding="utf-8")) for p in SHIPPED]
    for index in range(count - len(SHIPPED)):
        data = variant(shipped[index % len(shipped)], index)
        path = folder / f"{data['name']}.json"
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        _recipe, problems = check_file(path)
        if problems:
            raise SystemExit(f"generated recipe {path.name} is not valid: {problems[0]}")
        paths.append(path)
    return paths


def directive_source(srcdir: Path, recipes: list[Path]) -> None:
    """The shipped guide pages and, per recipe, the page `make recipe-page` writes."""
    shutil.copytree(ROOT / "source", srcdir, ignore=shutil.ignore_patterns("recipes"))
    (srcdir / "recipes").mkdir()
    for path in recipes:
        name = path.stem
        shipped_page = ROOT / "source" / "recipes" / f"{name}.md"
        text = (
            shipped_page.read_text(encoding="utf-8") if shipped_page.is_file() else newpage.TEMPLATE.format(name=name)
        )
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
    from recipebook import vocabulary

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


def plain_source(directive_src: Path, srcdir: Path, recipes: list, versions: dict) -> None:
    """The same pages with every recipe directive replaced by its plain-text output."""
    by_name = {r.name: r for r in recipes}

    def replace(match: re.Match) -> str:
        kind, name = match[1], match[2].strip()
        if kind == "recipe-catalogue":
            return plain_catalogue(recipes)
        if kind == "recipe-flags":
            return plain_flags(recipes)
        recipe = by_name[name]
        render = {
            "recipe-header": plain_header,
            "recipe-install": lambda r: plain_install(r, versions),
            "recipe-explorer": plain_explorer,
            "recipe-client": lambda r: "Once the server is up, send it a request:\n\n" + code(r.client),
        }[kind]
        return render(recipe) + "\n"

    shutil.copytree(directive_src, srcdir)
    for page in srcdir.rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        page.write_text(DIRECTIVE.sub(replace, text), encoding="utf-8")
    leftover = [p.name for p in srcdir.rglob("*.md") if "{recipe-" in p.read_text(encoding="utf-8")]
    assert not leftover, leftover


def plain_conf(confdir: Path) -> None:
    """The site's conf.py without the recipebook extension (and its sidebar template)."""
    confdir.mkdir(parents=True)
    (confdir / "conf.py").write_text(
        "from pathlib import Path\n"
        f"__file__ = {str(ROOT / 'conf.py')!r}\n"
        "exec(compile(Path(__file__).read_text(), __file__, 'exec'))\n"
        "extensions = [e for e in extensions if e != 'recipebook_sphinx']\n"
        "html_sidebars = {k: [s for s in v if s != 'sidebar/language.html'] for k, v in html_sidebars.items()}\n"
        "locale_dirs = []\n",
        encoding="utf-8",
    )


# -- measuring -------------------------------------------------------------------------


def sphinx(srcdir: Path, out: Path, *options: str, confdir: Path = ROOT, fresh: bool = True) -> float:
    if fresh and out.exists():
        shutil.rmtree(out)
    command = [sys.executable, "-m", "sphinx", "-q", "-W", "--keep-going", "-b", "html", "-c", str(confdir)]
    command += ["-d", str(out / "doctrees"), "-D", "language=en", *options, str(srcdir), str(out / "html")]
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=ENV, cwd=ROOT)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"build failed: {' '.join(command)}\n{result.stderr[-4000:]}")
    return elapsed


def best(repeat: int, measure) -> float:
    return min(measure() for _ in range(repeat))


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


def page_weight(full_html: Path, recommended_html: Path, name: str) -> dict:
    recipe = load(ROOT / "recipes" / f"{name}.json")
    shipped = (full_html / "recipes" / f"{name}.html").read_bytes()
    rec_text = (recommended_html / "recipes" / f"{name}.html").read_text(encoding="utf-8")
    soup = BeautifulSoup(rec_text, "html.parser")
    every = len(rec_text.encode())
    selections = 0
    for form in soup.select("form.rb-grid"):
        strategy, target = form["data-strategy"], form["data-target"]
        area = len(str(form.select_one(".rb-cmds")).encode())
        opening = expand(recipe, strategy, target)

        def text_bytes(result) -> int:
            texts = [c.shell for c in result.commands] + [cmd for _n, cmd in result.router]
            return sum(len(html.escape(t, quote=False).encode()) for t in texts)

        shown = text_bytes(opening)
        grid_total = 0
        for result in matrix(recipe):
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
    def run() -> tuple[float, float, int]:
        start = time.perf_counter()
        recipes = []
        for path in paths:
            recipe, problems = check_file(path)
            assert not problems, problems
            recipes.append(recipe)
        validated = time.perf_counter()
        count = 0
        for recipe in recipes:
            for result in matrix(recipe):
                for command in result.commands:
                    command.shell  # noqa: B018 - the text is the work
                count += 1
        return validated - start, time.perf_counter() - validated, count

    runs = [run() for _ in range(repeat)]
    validate, expand_time, count = min(runs, key=lambda r: r[0] + r[1])
    return {"validate": validate, "expand": expand_time, "selections": count}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipes", type=int, default=50, help="recipes in the generated site (default 50)")
    parser.add_argument("--repeat", type=int, default=2, help="builds per figure; the fastest counts (default 2)")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (default: a temporary folder)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="recipebook-bench-"))
    if work.exists() and args.keep:
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    figures: dict = {"machine": machine(), "recipes": args.recipes}
    try:
        print(f"# working in {work}", file=sys.stderr)
        # shipped site, as make html builds it
        make_env = {k: v for k, v in ENV.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}

        def shipped_build() -> float:
            shutil.rmtree(work / "shipped", ignore_errors=True)
            start = time.perf_counter()
            subprocess.run(
                ["make", "-s", "html", f"BUILD={work / 'shipped'}"],
                check=True,
                cwd=ROOT,
                env=make_env,
                stdout=subprocess.DEVNULL,
            )
            return time.perf_counter() - start

        figures["shipped_build"] = best(args.repeat, shipped_build)
        print(f"# shipped site built: {figures['shipped_build']:.1f} s", file=sys.stderr)

        # generated site, directive and plain pages
        paths = generate_recipes(work / "recipes", args.recipes)
        recipes = [load(p) for p in paths]
        option = ["-D", f"recipebook_dir={work / 'recipes'}"]
        directive_source(work / "src-directives", paths)
        versions = json.loads(
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
        plain_source(work / "src-directives", work / "src-plain", recipes, versions)
        plain_conf(work / "conf-plain")

        full = lambda: sphinx(work / "src-directives", work / "out-j1", *option, "-j", "1")  # noqa: E731
        figures["gen_build_j1"] = best(args.repeat, full)
        print(f"# 50-recipe site, -j 1: {figures['gen_build_j1']:.1f} s", file=sys.stderr)
        figures["gen_build_j2"] = best(
            args.repeat, lambda: sphinx(work / "src-directives", work / "out-j2", *option, "-j", "2")
        )
        figures["plain_build_j1"] = best(
            args.repeat, lambda: sphinx(work / "src-plain", work / "out-plain", "-j", "1", confdir=work / "conf-plain")
        )
        print(f"# plain pages, -j 1: {figures['plain_build_j1']:.1f} s", file=sys.stderr)

        # incremental: touch one recipe of the built site (out-j1 holds the last full build)
        full()
        incremental = []
        for _ in range(args.repeat):
            html_files = list((work / "out-j1" / "html").rglob("*.html"))
            before = {p: p.stat().st_mtime_ns for p in html_files}
            touched = work / "recipes" / paths[len(paths) // 2].name
            os.utime(touched, (time.time() + 1, time.time() + 1))
            incremental.append(sphinx(work / "src-directives", work / "out-j1", *option, "-j", "1", fresh=False))
            figures["incremental_pages"] = sum(p.stat().st_mtime_ns != before[p] for p in html_files)
        figures["incremental"] = min(incremental)
        figures["incremental_recipe"] = touched.name

        # engine
        figures["engine"] = engine(paths, args.repeat)

        # page weight, English recipe pages of the shipped site
        sphinx(ROOT / "source", work / "recommended", "-D", "recipebook_render=recommended")
        figures["weight"] = [
            page_weight(work / "shipped" / "html" / "en", work / "recommended" / "html", p.stem) for p in SHIPPED
        ]
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    report(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


def report(f: dict) -> None:
    e = f["engine"]
    rate = e["selections"] / (e["validate"] + e["expand"])
    lines = [
        f"Machine: {f['machine']}",
        "",
        "| Figure | Measured | Ratio | Target |",
        "| --- | --- | --- | --- |",
        f"| Shipped site, full bilingual build (`make html`, -j auto) | {f['shipped_build']:.1f} s | | |",
        f"| Generated site ({f['recipes']} recipes, English), -j 1 | {f['gen_build_j1']:.1f} s | | |",
        f"| Same pages, recipe directives replaced by their plain-text output, -j 1 | {f['plain_build_j1']:.1f} s "
        f"| extension cost {f['gen_build_j1'] / f['plain_build_j1']:.2f}x | at most 1.3x |",
        f"| Incremental: touch one recipe ({f['incremental_recipe']}), rebuild ({f['incremental_pages']} pages "
        f"rewritten) | {f['incremental']:.1f} s | {100 * f['incremental'] / f['gen_build_j1']:.0f}% of the full "
        "build | at most 10% |",
        f"| Generated site, -j 2 | {f['gen_build_j2']:.1f} s | {f['gen_build_j2'] / f['gen_build_j1']:.2f}x of -j 1 "
        f"(speed-up {f['gen_build_j1'] / f['gen_build_j2']:.2f}) | |",
        f"| Engine: validate {f['recipes']} recipes, expand all {e['selections']} selections | "
        f"{e['validate']:.2f} s + {e['expand']:.2f} s | {rate:,.0f} selections/s | |",
    ]
    for w in f["weight"]:
        lines.append(
            f"| Page weight, {w['page']} ({w['selections']} selections) | {w['shipped'] / 1024:.1f} KiB "
            f"({w['shipped_gz'] / 1024:.1f} KiB gzip) | {w['shipped'] / w['recommended']:.2f}x the recommended-only "
            f"page ({w['recommended'] / 1024:.1f} KiB, {w['recommended_gz'] / 1024:.1f} KiB gzip); "
            f"{w['shipped'] / w['every']:.3f}x a page with every selection in full ({w['every'] / 1024:,.0f} KiB) | |"
        )
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
