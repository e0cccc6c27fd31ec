"""Test root of the sidebar reuse (tests/adapter/test_sidebar.py): Furo, and tables of contents of every
shape the sidebar meets: captions, folders within folders, a hidden toctree, a page listed twice,
a page with two top-level sections, an external link, the index, an orphan page."""

extensions = ["recipebook_sphinx.page.sidebar"]
html_theme = "furo"
exclude_patterns = ["_build"]
project = "Sidebar"
smartquotes = False  # titles keep their straight quotes: attribute values with a quote
