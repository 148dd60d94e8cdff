import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# The package under test: the checkout's, unless RDMAD_PYTHON_INSTALLED=1
# (package-check runs the suite against the installed python3-rdmad).
if os.environ.get("RDMAD_PYTHON_INSTALLED") != "1":
    sys.path.insert(0, str(HERE.parents[1] / "python"))

from rdmad_host import Host, bus_kind  # noqa: E402

# Every fixture that can share one host (their names and PCI domains differ);
# siw-over-nic reuses siw0 and gets a host of its own.
MAIN_FIXTURES = ["mlx4-vpi", "mlx5-roce-sriov", "hfi1", "rxe", "siw", "broken"]


def skip_unless_bus_possible():
    if bus_kind() == "dbus-broker" and os.getuid() != 0 and not Path("/run/systemd/journal/socket").exists():
        pytest.skip("dbus-broker without journald needs root (a journal stand-in in a private mount namespace)")


@pytest.fixture(scope="module")
def host():
    skip_unless_bus_possible()
    h = Host(MAIN_FIXTURES)
    yield h
    h.stop()


@pytest.fixture
def client(host):
    from rdmad.client import Client
    c = Client(host.address)
    yield c
    c.close()
