"""Issue 31.2: `make test` installs the Debian packages it needs (tools/system-packages): it asks
dpkg-query, installs only what is missing with apt-get as root, and tells anyone else what to install."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "system-packages"


def _stub(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(0o755)


def run(tmp_path: Path, *, uid: int, missing: set[str]) -> tuple[subprocess.CompletedProcess, list[str]]:
    """The script with dpkg-query, id and apt-get stubbed: `missing` are not installed; apt-get logs its calls."""
    stubs = tmp_path / "bin"
    stubs.mkdir()
    log = tmp_path / "apt.log"
    cases = "".join(f'  "{name}") printf "unknown ok not-installed"; exit 0 ;;\n' for name in sorted(missing))
    _stub(stubs, "dpkg-query", f'for last; do :; done\ncase "$last" in\n{cases}esac\nprintf "install ok installed"')
    _stub(stubs, "id", f"echo {uid}")
    _stub(stubs, "apt-get", f'echo "$*" >> {log}')
    _stub(stubs, "npm", "exit 0")
    env = {"PATH": f"{stubs}:/usr/bin:/bin", "LANG": "C.UTF-8"}
    result = subprocess.run([str(SCRIPT)], capture_output=True, text=True, env=env, check=False)
    calls = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return result, calls


def test_nothing_missing_is_silent(tmp_path):
    result, calls = run(tmp_path, uid=1000, missing=set())
    assert (result.returncode, result.stdout, result.stderr, calls) == (0, "", "", [])


def test_root_installs_only_what_is_missing(tmp_path):
    result, calls = run(tmp_path, uid=0, missing={"chromium-headless-shell", "fonts-noto-cjk"})
    assert result.returncode == 0, result.stderr
    assert calls[0] == "update -qq"
    assert calls[1].split()[-2:] == ["chromium-headless-shell", "fonts-noto-cjk"] and calls[1].startswith("install -y")


@pytest.mark.parametrize("missing", [["shellcheck"], ["gettext", "default-jre-headless"]])  # in the script's order
def test_anyone_else_is_told_what_to_install(tmp_path, missing):
    result, calls = run(tmp_path, uid=1000, missing=set(missing))
    assert result.returncode == 1 and not calls
    assert f"apt-get install --no-install-recommends {' '.join(missing)}" in result.stderr


def test_ci_runs_exactly_the_test_command_which_installs_the_packages_first():
    commands = [line for line in (ROOT / ".ci/run").read_text(encoding="utf-8").splitlines() if line.startswith("make")]
    assert commands == ["make test", "make crosscheck"]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "\ntest: system " in makefile and "\nsystem:\n\t@tools/system-packages\n" in makefile
