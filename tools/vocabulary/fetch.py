"""Fetching: ``pip download --no-deps`` of the released packages, unpacking only their Python source."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

# The import packages whose source is read: vLLM, its RBLN platform plugin, and LMCache (its settings).
PACKAGES = ("vllm", "vllm_rbln", "lmcache")


def _unpack(archive: Path, into: Path) -> None:
    """Unpack only the Python source and the entry points of a wheel or an sdist."""
    sdist = not archive.name.endswith(".whl")

    def target(name: str) -> str | None:
        parts = name.split("/")[1:] if sdist else name.split("/")
        if ".." in parts or not parts:
            return None
        if not sdist and len(parts) == 2 and parts[0].endswith(".dist-info") and parts[1] == "entry_points.txt":
            return "/".join(parts)
        if parts[0] in PACKAGES and parts[-1].endswith(".py"):
            return "/".join(parts)
        return None

    def write(name: str, data: bytes) -> None:
        path = into / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                name = target(info.filename)
                if name:
                    write(name, zf.read(info))
    else:
        with tarfile.open(archive) as tf:
            for member in tf.getmembers():
                name = target(member.name)
                source = tf.extractfile(member) if name and member.isfile() else None
                if name and source is not None:
                    write(name, source.read())
        _sdist_entry_points(archive, into)


def _sdist_entry_points(archive: Path, into: Path) -> None:
    """An sdist keeps its entry points in pyproject.toml; write them out as a wheel would."""
    import tomllib

    with tarfile.open(archive) as tf:
        member = next(
            (m for m in tf.getmembers() if m.name.count("/") == 1 and m.name.endswith("pyproject.toml")), None
        )
        if member is None:
            return
        source = tf.extractfile(member)
        if source is None:
            return
        project = tomllib.loads(source.read().decode("utf-8")).get("project", {})
    groups = project.get("entry-points", {})
    if not groups:
        return
    name = project.get("name", archive.name.split("-")[0]).replace("-", "_")
    info = into / f"{name}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    lines = []
    for group, entries in sorted(groups.items()):
        lines.append(f"[{group}]")
        lines += [f"{k} = {v}" for k, v in sorted(entries.items())]
        lines.append("")
    (info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")


def download(requirements: list[str], into: Path) -> list[Path]:
    """``pip download --no-deps``: a wheel when there is one, else the source distribution.

    The vLLM wheel is built for Linux only; when none fits this machine, the Linux one is
    asked for explicitly (only its Python source is read, so any platform's wheel will do).
    """
    base = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-d", str(into)]
    linux = ["--platform", "manylinux_2_28_x86_64", "--platform", "manylinux1_x86_64", "--python-version", "3.12"]
    attempts = (["--only-binary", ":all:"], ["--only-binary", ":all:", *linux], ["--no-binary", ":all:"])
    for extra in attempts:
        result = subprocess.run([*base, *extra, *requirements], check=False)
        if result.returncode == 0:
            break
    else:
        raise SystemExit(f"pip could not download {' '.join(requirements)}")
    return sorted(p for p in into.iterdir() if p.name.endswith((".whl", ".tar.gz", ".zip")))
