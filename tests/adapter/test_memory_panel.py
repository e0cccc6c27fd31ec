"""The memory panel of a selection recorded to fail: its verdict is "failed", in its rows, its
summary and llms.txt's line, with the recorded error, in English and Korean, however much memory
the figures leave."""

from __future__ import annotations

import pytest

from recipe_support import AXK2_NAME, check_mutated, fixture
from recipebook.expanding import page
from recipebook_sphinx.explorer import memory_panel
from recipebook_sphinx.i18n import po

DP = "aggregated-data-expert-parallel"
OFF = {"lmcache": "off", "prefix_caching": "off", "spec_decode": "off"}


def _translate(language: str):
    # the catalog as the build reads it: its one reader, the translations a build shows
    messages = po.read_file("locale/ko/LC_MESSAGES/recipebook.po").messages
    catalog = {m.id: m.strings[0] for m in messages if m.used and m.plural is None}
    return lambda text: catalog.get(text, text) if language == "ko" else text


@pytest.mark.parametrize(
    ("language", "word", "said"), [("en", "failed", "known to fail"), ("ko", "실행 실패", "실패한 기록")]
)
def test_a_selection_recorded_to_fail_shows_failed(tmp_path, language, word, said):
    served = fixture(AXK2_NAME)["facts"]["checkpoints"][0]["model"]

    def mutate(data):
        # the recorded failure moved to the checkpoint the commands serve: a selection of the page
        failure = next(o for o in data["facts"]["observations"] if o["outcome"] == "fails")
        failure["model"] = served

    checked = check_mutated(tmp_path, AXK2_NAME, mutate)
    assert checked.recipe is not None and not [p for p in checked.problems if p.is_error], checked.problems
    model = page.page_of(checked.recipe)
    target = model.target(DP, "Latency")
    chosen = next(c for c in target.table.offered if all(target.selection(c).get(a) == v for a, v in OFF.items()))
    fit = target.memory_at(chosen)
    assert fit is not None and fit.verdict == "failed", fit and fit.verdict
    _ = _translate(language)
    error = fit.failed.error
    views = [
        v for v in memory_panel.fit_views(target, _, page.reconciled(checked.recipe)[1]) if v.summary.find(said) >= 0
    ]
    assert views and all(error in v.summary for v in views)
    assert all(row.verdict == "failed" and row.verdict_text == word for v in views for row in v.rows)
    # every other selection keeps its own verdict
    others = [v for v in memory_panel.fit_views(target, _) if said not in v.summary]
    assert others and all(row.verdict != "failed" for v in others for row in v.rows)
