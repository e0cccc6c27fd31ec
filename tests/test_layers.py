"""The engine's layers. The import-linter contracts in pyproject.toml (run by `make lint`) check the
engine's own imports: its layer order, and that it never imports the adapter, Sphinx, docutils or
Jinja. What they cannot see is checked here: the libraries the engine calls load none of those
either when it runs, and docs/architecture.md draws the order the contract enforces."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

from conftest import ROOT

FOREIGN = ("sphinx", "docutils", "jinja2", "myst_parser", "sphinx_design", "markupsafe", "recipebook_sphinx")

SCRIPT = """
import importlib, pkgutil, sys
import recipebook
for module in pkgutil.walk_packages(recipebook.__path__, "recipebook."):
    if module.name == "recipebook.__main__":
        continue
    importlib.import_module(module.name)
print("\\n".join(sorted({name.split(".")[0] for name in sys.modules} | set(sys.modules))))
"""


def _contracts() -> dict[str, dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    return {contract["id"]: contract for contract in config["contracts"]}


def test_the_engine_loads_no_sphinx_docutils_or_jinja_through_its_libraries() -> None:
    """Every module of the engine imported, with what its libraries (PyYAML, jsonschema, ...)
    import in turn: nothing foreign is loaded (the contract sees only the engine's own imports)."""
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT / "_ext"), "PATH": "/usr/bin:/bin"},
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


def test_the_contract_forbids_what_this_test_looks_for() -> None:
    """The purity contract names every package this test keeps out at run time."""
    pure = _contracts()["engine-pure"]
    assert pure["type"] == "forbidden" and pure["source_modules"] == ["recipebook"]
    assert set(FOREIGN) <= set(pure["forbidden_modules"])


def test_the_architecture_page_draws_the_contract_order() -> None:
    """docs/architecture.md states the layer order the contract enforces, and names each layer's
    modules in its table (a layer added to the contract and not to the page fails here)."""
    layers = _contracts()["engine-layers"]
    assert layers["type"] == "layers" and layers["containers"] == ["recipebook"] and layers["exhaustive"]
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawn = re.search(r"```text\n(__main__ > [^\n]+)\n```", page)
    assert drawn is not None, "the layer diagram of docs/architecture.md"
    assert drawn.group(1) == " > ".join(layers["layers"])
    for layer in layers["layers"]:
        for module in layer.split(" | "):
            folder = ROOT / "_ext" / "recipebook" / module
            name = f"`{module}/`" if folder.is_dir() else f"`{module}.py`"
            assert name in page, name
