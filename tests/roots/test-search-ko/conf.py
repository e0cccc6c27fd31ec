"""Tiny Korean site for tests/adapter/test_search_ko.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

project = "search-ko"
extensions = ["korean_search"]
language = "ko"
html_theme = "basic"
