"""With which vLLM and vllm-rbln each target was verified, and whether the pinned release moved past it.

A target states its verifying releases in ``verifiedWith`` (``{"vllm": "0.30.0", "vllm-rbln":
"0.12.0"}``) beside its ``verified`` date. A target that does not (every recipe written before
the field existed) was verified with the release pinned at the time: ``ASSUMED``. When the
release the site pins (conf.py ``recipebook_versions``; the engine's ``PINNED_VLLM`` and its
vocabulary file) is newer than the one a target was verified with, for either package, the
target is "not yet re-verified" with the pinned release: the page and the API say so.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from types import MappingProxyType

from ..reading import vocabulary
from ..reading.model import Target

PACKAGES = ("vllm", "vllm-rbln")
NAMES = MappingProxyType({"vllm": "vLLM", "vllm-rbln": "vllm-rbln"})
# The releases every target was verified with before targets said so (issue 21).
ASSUMED = MappingProxyType({"vllm": "0.30.0", "vllm-rbln": "0.12.0"})
_NUMBERS = re.compile(r"\d+")


def release_key(version: str) -> tuple[int, ...]:
    """A release's numbers in order (``0.30.0`` is (0, 30, 0); ``0.10.1rc1`` is (0, 10, 1, 1))."""
    return tuple(int(n) for n in _NUMBERS.findall(version))


@dataclasses.dataclass(frozen=True, kw_only=True)
class Provenance:
    """One target's verification: the date, the releases, and the releases the site pins."""

    date: str
    releases: Mapping[str, str]  # package -> the release the target was verified with
    stated: bool  # given by the recipe (verifiedWith), not ASSUMED
    pinned: Mapping[str, str]  # package -> the release the site pins

    @property
    def newer(self) -> tuple[str, ...]:
        """The packages whose pinned release is newer than the one the target was verified with."""
        return tuple(
            p for p in PACKAGES if p in self.pinned and release_key(self.pinned[p]) > release_key(self.releases[p])
        )

    @property
    def current(self) -> bool:
        """Whether the target is verified with the pinned releases (or newer ones)."""
        return not self.newer

    def releases_text(self, releases: Mapping[str, str] | None = None, packages: tuple[str, ...] = PACKAGES) -> str:
        """``vLLM 0.30.0, vllm-rbln 0.12.0`` (package names are not translated)."""
        releases = releases or self.releases
        return ", ".join(f"{NAMES[p]} {releases[p]}" for p in packages)

    def pending_text(self) -> str:
        """The pinned releases the target is not yet re-verified with (``vLLM 0.33.0``)."""
        return self.releases_text(self.pinned, self.newer)

    def to_json(self) -> dict[str, object]:
        return {
            "date": self.date,
            "vllm": self.releases["vllm"],
            "vllm_rbln": self.releases["vllm-rbln"],
            "stated": self.stated,
            "pinned": {"vllm": self.pinned.get("vllm"), "vllm_rbln": self.pinned.get("vllm-rbln")},
            "current": self.current,
        }


def pinned_releases() -> Mapping[str, str]:
    """The releases the engine pins: PINNED_VLLM and the vllm-rbln of its vocabulary file."""
    return MappingProxyType({"vllm": vocabulary.PINNED_VLLM, "vllm-rbln": vocabulary.pinned().data["vllm_rbln"]})


def provenance(target: Target, pinned: Mapping[str, str] | None = None) -> Provenance:
    """A target's provenance against the pinned releases (the engine's, unless the site gives its own)."""
    stated = target.verified_with is not None
    releases = dict(target.verified_with) if target.verified_with is not None else dict(ASSUMED)
    chosen = pinned_releases() if pinned is None else pinned
    return Provenance(
        date=target.verified,
        releases=MappingProxyType(releases),
        stated=stated,
        pinned=MappingProxyType({p: chosen[p] for p in PACKAGES if chosen.get(p)}),
    )
