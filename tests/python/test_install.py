"""python/ installs as test suites install it: offline, with Debian's
setuptools and wheel (no build isolation, no index), leaving no build
output in the source tree, and shipping py.typed."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parents[2]
PYTHON = "/usr/bin/python3"  # Debian's, with python3-setuptools, python3-wheel, python3-pip


def _tree(root: Path) -> list:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_pip_installs_offline_and_leaves_the_tree_as_it_was(tmp_path):
    if subprocess.run([PYTHON, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        pytest.skip("no pip for /usr/bin/python3 (Debian: apt install python3-pip)")
    # A copy of the sources as the checkout has them, so that a failure here
    # cannot leave anything in the checkout itself.
    src = tmp_path / "python"
    shutil.copytree(TOP / "python", src, ignore=shutil.ignore_patterns("__pycache__"))
    before = _tree(src)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON"))}
    # No index at all: with build isolation pip would have to download setuptools and fail.
    r = subprocess.run([PYTHON, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-deps",
                        "--no-cache-dir", "--disable-pip-version-check", "--target", str(tmp_path / "site"),
                        str(src)], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert _tree(src) == before, set(_tree(src)) ^ set(before)  # no build/, no rdmad.egg-info, no cache

    site = tmp_path / "site"
    assert (site / "rdmad" / "py.typed").is_file()
    assert sorted(p.name for p in (site / "rdmad").glob("*.py")) == \
        sorted(p.name for p in (TOP / "python" / "rdmad").glob("*.py"))
    assert not (site / "build_backend").exists() and not (site / "out_of_tree.py").exists()
    # The installed copy is the one imported.
    r = subprocess.run([PYTHON, "-c", "import rdmad, rdmad.sts; print(rdmad.__file__)"],
                       env={**env, "PYTHONPATH": str(site)}, cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(site / "rdmad" / "__init__.py")
    print(sys.version)
