"""make test's workers take the files heaviest first (conftest.pytest_collection_modifyitems):
the first file that needs the portal, then the files that drive Chromium (and the other portal
files), then those that build a site of their own, then the rest; a file stays whole."""

from __future__ import annotations

import conftest


class _Item:
    def __init__(self, nodeid: str, fixtures: tuple[str, ...] = (), markers: tuple[str, ...] = ()):
        self.nodeid, self.fixturenames, self.markers = nodeid, list(fixtures), list(markers)

    def get_closest_marker(self, name: str):
        return name if name in self.markers else None

    def add_marker(self, marker) -> None:
        self.markers.append(marker.name)


def test_files_are_taken_heaviest_first_and_stay_whole():
    items = [
        _Item("tests/test_a.py::one"),
        _Item("tests/test_b.py::one", markers=("slow",)),
        _Item("tests/test_c.py::one", fixtures=("browser", "site")),
        _Item("tests/test_d.py::one", fixtures=("portal_project",)),
        _Item("tests/test_e.py::one"),
        _Item("tests/test_e.py::two", fixtures=("browser",)),
        _Item("tests/test_f.py::one", fixtures=("portal_project", "browser")),
        _Item("tests/test_g.py::one", markers=("browser",)),
    ]
    conftest.pytest_collection_modifyitems(items)
    assert [item.nodeid for item in items] == [
        "tests/test_d.py::one",  # the first file that needs the portal: its worker builds it
        "tests/test_c.py::one",  # Chromium
        "tests/test_e.py::one",  # a file with one Chromium test is taken whole, with them
        "tests/test_e.py::two",
        "tests/test_f.py::one",  # the portal again: by then it is built
        "tests/test_g.py::one",
        "tests/test_b.py::one",  # a site build of its own
        "tests/test_a.py::one",
    ]


def test_a_test_that_opens_chromium_is_marked_browser():
    item = _Item("tests/test_x.py::one", fixtures=("browser",))
    conftest.pytest_collection_modifyitems([item])
    assert item.get_closest_marker("browser") == "browser"
