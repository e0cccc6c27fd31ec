"""What loading the extension costs every process that loads it (each sphinx-build, each catalog
tool): matplotlib, about half a second of processor time to import, is imported only when a plot
of measured results is drawn (test_results_site draws them)."""

from __future__ import annotations

import subprocess
import sys

from recipe_support import REPO


def test_loading_the_extension_imports_no_plotting_library():
    code = "import sys, recipebook_sphinx; print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env={"PYTHONPATH": str(REPO / "_ext")}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
