"""With which vLLM and vllm-rbln each target was verified, and the "not yet re-verified" mark when
the pinned release moves past it: the engine's decision (provenance.py), the schema field, the API
document, and a whole build of a copy of the project pinned to vLLM 0.33.0, in both languages."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import recipebook
from conftest import build_site
from recipebook.expanding import provenance
from recipebook.expanding.page import build_page
from recipebook.reading.model import Recipe
from recipebook.rendering import portable
from third_recipe import copy_project

REPO = Path(__file__).resolve().parents[1]
AXK2 = REPO / "recipes" / "A.X-K2.json"
PINNED = {"vllm": "0.30.0", "vllm-rbln": "0.12.0"}
MOVED = {"vllm": "0.33.0", "vllm-rbln": "0.12.0"}


def _targets() -> list:
    return [t for _, t in recipebook.load(AXK2).targets()]


def test_shipped_targets_are_verified_with_the_pinned_release() -> None:
    for target in _targets():
        found = provenance.provenance(target)
        assert (found.releases_text(), found.stated, found.current) == ("vLLM 0.30.0, vllm-rbln 0.12.0", False, True)
        assert found.pinned == PINNED  # the engine's PINNED_VLLM and its vocabulary's vllm-rbln


def test_moving_the_pin_past_a_target_marks_it() -> None:
    found = provenance.provenance(_targets()[0], MOVED)
    assert (found.current, found.newer, found.pending_text()) == (False, ("vllm",), "vLLM 0.33.0")
    both = provenance.provenance(_targets()[0], {"vllm": "0.33.0", "vllm-rbln": "0.13.0"})
    assert both.pending_text() == "vLLM 0.33.0, vllm-rbln 0.13.0"
    older = provenance.provenance(_targets()[0], {"vllm": "0.29.1", "vllm-rbln": "0.12.0"})
    assert older.current  # a pin behind the verification is no reason to re-verify


def test_a_target_states_its_releases(tmp_path: Path) -> None:
    data = json.loads(AXK2.read_text(encoding="utf-8"))
    data["strategies"][0]["options"][0]["verifiedWith"] = {"vllm": "0.33.0", "vllm-rbln": "0.12.0"}
    path = tmp_path / "A.X-K2.json"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    recipe = recipebook.load(path)
    stated = provenance.provenance(recipe.strategies[0].targets[0], MOVED)
    assert (stated.stated, stated.current, stated.releases_text()) == (True, True, "vLLM 0.33.0, vllm-rbln 0.12.0")
    assert not provenance.provenance(recipe.strategies[1].targets[0], MOVED).current


@pytest.mark.parametrize(
    ("value", "message"),
    [({"vllm": "0.33"}, "'vllm-rbln' is required"), ({"vllm": "latest", "vllm-rbln": "0.12.0"}, "does not match")],
)
def test_schema_checks_verified_with(tmp_path: Path, value: dict, message: str) -> None:
    data = json.loads(AXK2.read_text(encoding="utf-8"))
    data["strategies"][0]["options"][0]["verifiedWith"] = value
    path = tmp_path / "A.X-K2.json"
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    problems = recipebook.check_file(path)[1]
    assert problems and all("/strategies/0/options/0/verifiedWith" in p.pointer for p in problems), problems
    assert any(message in p.message for p in problems), problems


@given(st.lists(st.integers(min_value=0, max_value=300), min_size=1, max_size=4), st.integers(0, 3))
def test_release_order_is_numeric(numbers: list[int], where: int) -> None:
    version = ".".join(map(str, numbers))
    bumped = list(numbers)
    bumped[min(where, len(bumped) - 1)] += 1
    assert provenance.release_key(".".join(map(str, bumped))) > provenance.release_key(version)


def test_api_document_says_with_which_releases(tmp_path: Path) -> None:
    recipe: Recipe = recipebook.load(AXK2)
    current = portable.recipe_document(build_page(recipe))
    assert {json.dumps(t["verified"], sort_keys=True) for t in current["targets"]} == {
        json.dumps(
            {
                "current": True,
                "date": "2026-10-07",
                "pinned": {"vllm": "0.30.0", "vllm_rbln": "0.12.0"},
                "stated": False,
                "vllm": "0.30.0",
                "vllm_rbln": "0.12.0",
            },
            sort_keys=True,
        )
    }
    moved = portable.recipe_document(build_page(recipe, pinned=MOVED))
    assert all(t["verified"]["current"] is False for t in moved["targets"])
    assert {t["verified"]["pinned"]["vllm"] for t in moved["targets"]} == {"0.33.0"}


# --------------------------------------------------------------------------- a build pinned to 0.33.0


def _pin(project: Path, release: str) -> None:
    """Move the pinned vLLM of a project copy: conf.py's versions and the engine's PINNED_VLLM."""
    conf = project / "conf.py"
    conf.write_text(re.sub(r'^VLLM = "[^"]+"$', f'VLLM = "{release}"', conf.read_text(encoding="utf-8"), flags=re.M))
    engine = project / "_ext" / "recipebook" / "reading" / "vocabulary.py"
    text = engine.read_text(encoding="utf-8")
    engine.write_text(re.sub(r'^PINNED_VLLM = "[^"]+"$', f'PINNED_VLLM = "{release}"', text, flags=re.M))


@pytest.mark.slow
def test_a_site_pinned_to_a_newer_vllm_marks_every_target(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    _pin(project, "0.33.0")
    marks = {  # the target's facts; the targets table (one line each: its cells do not wrap)
        "en": (
            "not yet re-verified with vLLM 0.33.0",
            "verified 2026-10-07 with vLLM 0.30.0, vllm-rbln 0.12.0",
            "<p>not yet re-verified with:</p>\n<p>vLLM 0.33.0</p>",
        ),
        "ko": (
            "아직 vLLM 0.33.0 기준으로 재검증되지 않음",
            "vLLM 0.30.0, vllm-rbln 0.12.0 기준 2026-10-07 검증",
            "<p>아직 재검증되지 않은 릴리스:</p>\n<p>vLLM 0.33.0</p>",
        ),
    }
    targets = sum(len(s["options"]) for s in json.loads(AXK2.read_text(encoding="utf-8"))["strategies"])
    for language, (mark, fact, cell) in marks.items():
        result = build_site(project / "_build", language, project=project)
        assert result.returncode == 0, result.stderr
        page = (project / "_build" / "html" / language / "recipes" / "A.X-K2.html").read_text(encoding="utf-8")
        assert (page.count(mark), page.count(fact), page.count(cell)) == (targets, targets, targets), language
        markdown = (project / "_build" / "html" / language / "recipes" / "A.X-K2.md").read_text(encoding="utf-8")
        assert mark in markdown
    api = json.loads((project / "_build" / "html" / "api" / "recipes" / "A.X-K2.json").read_text(encoding="utf-8"))
    assert {(t["verified"]["current"], t["verified"]["pinned"]["vllm"]) for t in api["targets"]} == {(False, "0.33.0")}


def test_the_shipped_site_shows_no_mark(site: Path) -> None:
    for language, mark in (("en", "not yet re-verified"), ("ko", "재검증되지 않음")):
        page = (site / language / "recipes" / "A.X-K2.html").read_text(encoding="utf-8")
        assert mark not in page
        assert "vLLM 0.30.0, vllm-rbln 0.12.0" in page
