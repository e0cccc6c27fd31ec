"""The memory figures in the site's machine views: the API document, the Markdown view and
llms.txt say what the engine computes for the opening selection (the A.X-K2 anchor from
FIT-FACTS.md: 22,690,922,496 bytes of KV cache per data-parallel rank at 262,144 tokens)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recipe_support import AXK2_NAME

DP = "aggregated-data-expert-parallel"
ANCHOR = 22_690_922_496
SHOWN = f"{ANCHOR / 2**30:.1f} GiB"


def test_the_api_carries_the_figures_per_set_of_selections(site: Path):
    document = json.loads((site / "api" / "recipes" / f"{AXK2_NAME}.json").read_text(encoding="utf-8"))
    target = next(t for t in document["targets"] if t["strategy"] == DP)
    assert target["memory"]
    for group in target["memory"]:
        assert {r["kv_cache_bytes"] for r in group["ranks"]} == {ANCHOR}
        for rank in group["ranks"]:
            assert {"weights_bytes", "available_bytes", "free_bytes", "fits"} <= rank.keys()


@pytest.mark.parametrize(("language", "kv"), [("en", "KV cache"), ("ko", "KV 캐시")])
def test_markdown_view_and_llms_txt_say_the_same(site: Path, language: str, kv: str):
    view = (site / language / "recipes" / f"{AXK2_NAME}.md").read_text(encoding="utf-8")
    assert f"{kv} {SHOWN}" in view
    assert "--max-model-len" in view and "\u2013max-model-len" not in view  # flags keep their two hyphens
    index = (site / language / "llms.txt").read_text(encoding="utf-8")
    assert SHOWN in index


@pytest.mark.parametrize("language", ["en", "ko"])
def test_advice_gives_a_value_the_flag_takes(language: str):
    """'serve a shorter context: --max-model-len N': N as vLLM's int option reads it (no 212,992),
    in the panel's own words, for a selection asked to serve far more than fits."""
    import re

    import recipebook
    from recipebook.expanding import memory, page
    from recipebook_sphinx.explorer import memory_panel
    from recipebook_sphinx.i18n import po

    recipe = recipebook.load(f"recipes/{AXK2_NAME}.json")
    target = page.page_of(recipe).target(DP, "Latency")
    fit = memory.fit(
        recipe.facts,
        target.target.skus,
        target.opening_commands(),
        max_model_len=64 * 262144,
        settled=page.reconciled(recipe)[0],
    )
    # the catalog as the build reads it: its one reader, the translations a build shows
    messages = po.read_file("locale/ko/LC_MESSAGES/recipebook.po").messages
    catalog = {m.id: m.strings[0] for m in messages if m.used and m.plural is None}

    def _(text: str) -> str:
        return catalog.get(text, text) if language == "ko" else text

    notes = memory_panel._notes(fit, _)
    found = re.findall(r"--(max-model-len|max-num-seqs|pipeline-parallel-size) (\S+?)[ .,(]", " ".join(notes))
    assert {flag for flag, _value in found} >= {"max-model-len", "pipeline-parallel-size"}, notes
    assert all(value.isdigit() for _flag, value in found), found


@pytest.mark.parametrize(("language", "words"), [("en", "served as verified: {date}"), ("ko", "검증된 실행: {date}")])
def test_the_verified_selection_is_served_in_every_view(site: Path, language: str, words: str):
    """The opening selection of a verified target is "served" (issue 40, item 4), not "open": in
    the API (its group of selections only), the Markdown view and llms.txt, in both languages."""
    data = json.loads((Path("recipes") / f"{AXK2_NAME}.json").read_text(encoding="utf-8"))
    (strategy,) = [s for s in data["strategies"] if s["slug"] == DP]
    date = strategy["options"][0]["verified"]
    document = json.loads((site / "api" / "recipes" / f"{AXK2_NAME}.json").read_text(encoding="utf-8"))
    target = next(t for t in document["targets"] if t["strategy"] == DP)
    verdicts = [group["verdict"] for group in target["memory"]]
    assert verdicts.count("served") == 1 and len(verdicts) > 1  # other selections keep their own
    (served,) = [g for g in target["memory"] if g["verdict"] == "served"]
    assert served["served"] == {"kind": "verified", "key": served["served"]["key"], "date": date, "sources": []}
    assert served["fits"] is True and served["figures_fit"] is None  # the draft has no facts
    said = words.format(date=date)
    assert said in (site / language / "recipes" / f"{AXK2_NAME}.md").read_text(encoding="utf-8")
    index = (site / language / "llms.txt").read_text(encoding="utf-8")
    line = next(line for line in index.splitlines() if "21.1 GiB" in line)
    assert said in line
