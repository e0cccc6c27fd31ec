"""Write the site's root index.html: it sends a reader to their browser's language.

Without JavaScript it is a plain page with a link to each language.
Usage: python -m recipebook_sphinx.landing OUTDIR LANG [LANG ...]
"""

from __future__ import annotations

import sys
from html import escape
from pathlib import Path

NAMES = {"en": "English", "ko": "한국어"}
TITLES = {"en": "RBLN Serving Recipes", "ko": "RBLN 서빙 레시피"}


def page(languages: list[str]) -> str:
    links = "\n".join(
        f'<li><a href="{lang}/index.html" hreflang="{lang}" lang="{lang}">'
        f"{escape(TITLES.get(lang, lang))} ({escape(NAMES.get(lang, lang))})</a></li>"
        for lang in languages
    )
    alternates = "\n".join(f'<link rel="alternate" hreflang="{lang}" href="{lang}/index.html">' for lang in languages)
    known = ", ".join(f'"{lang}"' for lang in languages)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(TITLES["en"])}</title>
{alternates}
<script>
(function () {{
  var known = [{known}];
  var wanted = (navigator.languages || [navigator.language || ""]).map(function (l) {{ return l.slice(0, 2); }});
  var lang = wanted.find(function (l) {{ return known.indexOf(l) >= 0; }}) || known[0];
  location.replace(lang + "/index.html" + location.hash);
}}());
</script>
</head>
<body>
<main>
<h1>{escape(TITLES["en"])}</h1>
<p>Choose a language · 언어를 선택하세요</p>
<ul>
{links}
</ul>
</main>
</body>
</html>
"""


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    (out / "index.html").write_text(page(argv[1:]), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
