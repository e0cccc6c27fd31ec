"""How often one `make html` checks each recipe and expands each selection.

Runs the English and Korean Sphinx builds (serially, -j 1, fresh) in this process with
counting wrappers around the engine's entry points, then the publishing step if the
Makefile still runs one, and prints, per recipe, the number of checks and the most and
fewest times any one selection was expanded. Usage: python bench/count_work.py [OUTDIR]
"""

from __future__ import annotations

import collections
import contextlib
import json
import runpy
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "_ext"))

import importlib  # noqa: E402

expansion = importlib.import_module("recipebook.expanding.expansion")
explorer = importlib.import_module("recipebook.explorer")
load = importlib.import_module("recipebook.pipeline.load")  # the module; the package exports a function of that name

checks: collections.Counter[str] = collections.Counter()
expansions: collections.Counter[tuple[str, str, str, str]] = collections.Counter()
LANGUAGES = ("en", "ko")
_check_file, _expand_selection = load.check_file, expansion.expand_selection
_build_checked = explorer.build_checked
explorers: collections.Counter[str] = collections.Counter()


def counted_build_checked(recipe, strategy, target, **options):
    """An explorer built and proved: every offered selection of its target, once."""
    explorers[f"{recipe.name}\t{strategy.slug}\t{target.target}"] += 1
    return _build_checked(recipe, strategy, target, **options)


def counted_check_file(path):
    checks[Path(path).stem] += 1
    return _check_file(path)


def counted_expand_selection(recipe, strategy, target, selection):
    expansions[(recipe.name, strategy.slug, target.target, json.dumps(dict(selection), sort_keys=True))] += 1
    return _expand_selection(recipe, strategy, target, selection)


def install() -> None:
    """Replace every reference to the two functions, in every loaded recipebook module."""
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] not in ("recipebook", "recipebook_sphinx"):
            continue
        for attribute, wrapper, original in (
            ("check_file", counted_check_file, _check_file),
            ("expand_selection", counted_expand_selection, _expand_selection),
            ("build_checked", counted_build_checked, _build_checked),
        ):
            if getattr(module, attribute, None) is original:
                setattr(module, attribute, wrapper)


def step(out: Path, name: str) -> None:
    """One step of `make html` in this process, its counts written to OUT/counts-NAME.json."""
    from sphinx.cmd.build import build_main

    import recipebook_sphinx  # noqa: F401  (load the adapter's modules before wrapping)

    for module in (
        "page.directives",
        "store",
        "page.nodes",
        "publishing.markdown",
        "publishing.site",
        "i18n.languages",
    ):
        with contextlib.suppress(ImportError):  # modules that a version of the adapter may not have
            importlib.import_module(f"recipebook_sphinx.{module}")
    install()
    if name == "publish":
        sys.argv = ["publish", str(out / "html"), *LANGUAGES, "--site-url", ""]
        try:
            runpy.run_module("recipebook_sphinx.publish", run_name="__main__", alter_sys=True)
        except SystemExit as stop:
            if stop.code:
                raise
    else:
        args = ["-q", "-E", "-j", "1", "-b", "html", "-c", str(ROOT), "-d", str(out / "doctrees" / name)]
        code = build_main([*args, "-D", f"language={name}", str(ROOT / "source"), str(out / "html" / name)])
        if code:
            raise SystemExit(code)
    counts = {
        "checks": dict(checks),
        "expansions": ["\t".join(key) + f"\t{n}" for key, n in expansions.items()],
        "explorers": dict(explorers),
    }
    (out / f"counts-{name}.json").write_text(json.dumps(counts), encoding="utf-8")


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--step":
        step(Path(sys.argv[2]), sys.argv[3])
        return
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="count-work-"))
    steps = list(LANGUAGES)
    if "recipebook_sphinx.publish" in (ROOT / "Makefile").read_text(encoding="utf-8"):
        steps.append("publish")  # the separate publishing program, while there is one
    total_checks: collections.Counter[str] = collections.Counter()
    total: collections.Counter[str] = collections.Counter()
    built: collections.Counter[str] = collections.Counter()
    for name in steps:  # one process each, as make runs them
        subprocess.run([sys.executable, __file__, "--step", str(out), name], check=True)
        counts = json.loads((out / f"counts-{name}.json").read_text(encoding="utf-8"))
        total_checks.update(counts["checks"])
        built.update(counts.get("explorers", {}))
        for line in counts["expansions"]:
            key, _tab, n = line.rpartition("\t")
            total[key] += int(n)
    print(f"steps: {', '.join(steps)} (sphinx-build -j 1 -E)")
    for path in sorted(p for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json"):
        per = [n for key, n in total.items() if key.split("\t")[0] == path.stem]
        targets = [n for key, n in built.items() if key.split("\t")[0] == path.stem] or [0]
        print(
            f"{path.stem}: checked {total_checks[path.stem]}x; explorers (every offered selection) built and "
            f"proved {min(targets)}-{max(targets)}x per target; "
            + (
                f"{len(per)} selections also expanded whole, each {min(per)}-{max(per)}x"
                if per
                else "no selection expanded again"
            )
        )


if __name__ == "__main__":
    main()
