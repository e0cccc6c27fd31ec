"""A role in words: its title, shared by the explorer's views and its memory panel."""

from __future__ import annotations

from collections.abc import Callable

Translate = Callable[[str], str]


def role_title(role: str, _: Translate) -> str:
    titles = {"main": _("Server"), "prefill": _("Prefill server"), "decode": _("Decode server")}
    return titles.get(role, role)
