"""Sphinx configuration: English sources in source/, Korean from locale/. The extension
recipebook_sphinx is this project's own package (_ext/), installed in .venv by make."""

import gc
from pathlib import Path

ROOT = Path(__file__).resolve().parent

# A build makes and drops millions of small objects (doctree nodes, the explorers' selections):
# CPython's cycle collector, at its default thresholds (700, 10, 10), looks at the young ones tens of
# thousands of times per build. With a young generation of 50,000 objects it does so about seventy
# times less often: about 8% less processor time per build (the Korean site, alternating runs:
# 4.1-4.6 s before, 3.7-4.0 s after). The test suite's processes take the same (tests/conftest.py).
GC_THRESHOLDS = (50_000, 20, 20)
gc.set_threshold(*GC_THRESHOLDS)

project = "RBLN Serving Recipes"
author = "RBLN Serving Recipes contributors"
copyright = "2026, RBLN Serving Recipes contributors"

extensions = [
    "myst_parser",
    "sphinx_design",
    "sphinx_copybutton",
    "recipebook_sphinx",
]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
exclude_patterns = ["_build", ".venv", "_static"]

# Languages: English sources, Korean catalogs (sphinx-intl) in locale/.
language = "en"
locale_dirs = ["../locale/"]  # relative to source/
gettext_compact = True
gettext_uuid = False
gettext_location = False
gettext_additional_targets = []

# Recipes
recipebook_dir = "recipes"
# The site's facts, each written once (checked at config-inited: recipebook_sphinx/config.py).
VLLM = "0.30.0"
recipebook_versions = {
    "rebel-compiler": "0.12.0",
    "vllm-rbln": "0.12.0",
    "vllm": VLLM,
    "arctic-inference": "0.1.1",
    "rbln_index": "https://pypi.rbln.ai/simple",
    "vllm_cpu_index": f"https://wheels.vllm.ai/{VLLM}/cpu",
    "torch_cpu_index": "https://download.pytorch.org/whl/cpu",
}
recipebook_languages = ["en", "ko"]  # the sources' language first
# Where readers report a result ("report a result" links); empty: no link.
recipebook_repository_url = ""

# HTML
html_theme = "furo"
html_title = project
html_static_path = []
html_favicon = str(ROOT / "source" / "_static" / "favicon.svg")  # the landing page links it too
html_last_updated_fmt = None
html_copy_source = False
html_show_sourcelink = False
# The explorer has its own copy buttons (they copy only the lines shown).
copybutton_selector = "div.highlight pre:not(.rb-code pre)"
copybutton_exclude = ".linenos, .gp"
html_sidebars = {
    "**": [
        "sidebar/brand.html",
        "sidebar/language.html",
        "sidebar/search.html",
        "sidebar/scroll-start.html",
        "sidebar/navigation.html",
        "sidebar/scroll-end.html",
    ]
}
