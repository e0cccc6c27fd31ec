"""The engine is pure Python: it imports no Sphinx, docutils or Jinja (the adapter does)."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

FOREIGN = ("sphinx", "docutils", "jinja2", "myst_parser", "sphinx_design", "markupsafe")

SCRIPT = """
import importlib, pkgutil, sys
import recipebook
for module in pkgutil.walk_packages(recipebook.__path__, "recipebook."):
    if module.name == "recipebook.__main__":
        continue
    importlib.import_module(module.name)
print("\\n".join(sorted({name.split(".")[0] for name in sys.modules} | set(sys.modules))))
"""


def test_the_engine_imports_no_sphinx_docutils_or_jinja() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin"},
    )
    loaded = set(result.stdout.split())
    assert "recipebook" in loaded and "yaml" in loaded  # the script did import the engine
    engine = ROOT / "_ext" / "recipebook"
    every = {
        ".".join(("recipebook", *path.relative_to(engine).with_suffix("").parts)).removesuffix(".__init__")
        for path in engine.rglob("*.py")
        if path.name != "__main__.py"
    }
    assert every <= loaded, sorted(every - loaded)  # each of its modules, in every subpackage
    assert loaded.isdisjoint(FOREIGN), sorted(loaded & set(FOREIGN))


def test_the_check_sees_a_foreign_import() -> None:
    """The same check, given a module that imports docutils, finds it (it is not blind)."""
    result = subprocess.run(
        [sys.executable, "-c", "import docutils.nodes, sys; print('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "docutils" in {name.split(".")[0] for name in result.stdout.split()}
