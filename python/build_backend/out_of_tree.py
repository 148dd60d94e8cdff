"""setuptools' PEP 517 backend, run on a copy of the source tree.

pip builds a local directory in place (``pip install ./python``), and
setuptools then writes ``build/`` and ``rdmad.egg-info/`` beside the
sources. Each hook here copies the tree to a temporary directory and runs
setuptools' own hook there, so that a build leaves nothing in the checkout;
the wheel, sdist and metadata go where the frontend asked, as always.
Only the standard library and setuptools (Debian's python3-setuptools):
``pip install --no-build-isolation ./python`` works offline.
"""

import os
import shutil
import tempfile
from contextlib import contextmanager

from setuptools import build_meta as _setuptools

_SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What a build (or an earlier one of an older tree) may have left: not copied.
_NOT_COPIED = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", "*.pyc")


@contextmanager
def _in_a_copy():
    old = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="rdmad-python-build-") as tmp:
        copy = os.path.join(tmp, "src")
        shutil.copytree(_SOURCE, copy, ignore=_NOT_COPIED)
        os.chdir(copy)
        try:
            yield
        finally:
            os.chdir(old)


def _drop_own_bytecode():
    """The interpreter caches this module's bytecode beside it before it runs
    it: removed, so that the checkout is left as it was."""
    cache = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")
    try:
        for name in os.listdir(cache):
            if name.startswith(__name__ + "."):
                os.unlink(os.path.join(cache, name))
        os.rmdir(cache)
    except OSError:
        pass  # none, read-only, or other files: nothing of ours to drop


_drop_own_bytecode()


def _absolute(path):
    return os.path.abspath(path) if path is not None else None


def get_requires_for_build_wheel(config_settings=None):
    with _in_a_copy():
        return _setuptools.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_sdist(config_settings=None):
    with _in_a_copy():
        return _setuptools.get_requires_for_build_sdist(config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    target = _absolute(metadata_directory)
    with _in_a_copy():
        return _setuptools.prepare_metadata_for_build_wheel(target, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    target, metadata = _absolute(wheel_directory), _absolute(metadata_directory)
    with _in_a_copy():
        return _setuptools.build_wheel(target, config_settings, metadata)


def build_sdist(sdist_directory, config_settings=None):
    target = _absolute(sdist_directory)
    with _in_a_copy():
        return _setuptools.build_sdist(target, config_settings)
