"""rdmad: RDMA devices, ports and link events from the rdmad daemon, over D-Bus.

Two APIs over the same connection code:

* ``rdmad.client``: the Pythonic one (``Client``, ``watch()``,
  ``wait_for_state()``, counters, SR-IOV through polkit);
* ``rdmad.sts``: a drop-in for sts-libs' ``sts.rdma``
  (``from rdmad import sts as rdma``).

Neither reads sysfs: rdmad is the one source.
"""

from .errors import (  # noqa: F401
    AccessDenied, Busy, Failed, InteractiveAuthorizationRequired, InvalidArgument, NoGid, NoRoute,
    NoSuchDevice, NotRdma, NotSupported, RdmadError, RdmadUnavailable, Timeout, Unresponsive)

__version__ = "0.1.0"
