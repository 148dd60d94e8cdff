"""Exceptions of the rdmad package, mapped from D-Bus error names.

Every error rdmad returns is an ``org.rdmad1.Error.*`` name; each has a class
here, and each class also derives from the built-in exception a Python caller
would catch for that kind of failure (``LookupError`` for a missing device,
``TimeoutError`` for a timeout, ``PermissionError`` for a refusal, ...).
"""

from __future__ import annotations

import re


class RdmadError(Exception):
    """Base of every error of this package.

    ``dbus_name`` is the D-Bus error name (``org.rdmad1.Error.Busy``) or
    ``None`` when the error did not come from the bus.
    """

    dbus_name: str | None = None

    def __init__(self, message: str = "", dbus_name: str | None = None):
        super().__init__(message)
        if dbus_name is not None:
            self.dbus_name = dbus_name


class RdmadUnavailable(RdmadError, ConnectionError):
    """rdmad cannot be reached: the bus is not there, or rdmad is neither
    running nor D-Bus activatable on it."""


class InvalidArgument(RdmadError, ValueError):
    """org.rdmad1.Error.InvalidArgument: rdmad refused an argument."""


class NoSuchDevice(RdmadError, LookupError):
    """org.rdmad1.Error.NoSuchDevice: no such device, port or netdev."""


class Busy(RdmadError):
    """org.rdmad1.Error.Busy: another SetNumVfs for the device runs."""


class Failed(RdmadError, OSError):
    """org.rdmad1.Error.Failed: the kernel refused (the message has its errno text)."""


class NotSupported(RdmadError):
    """org.rdmad1.Error.NotSupported."""


class Timeout(RdmadError, TimeoutError):
    """org.rdmad1.Error.Timeout, or no answer in time."""


class Unresponsive(RdmadError, TimeoutError):
    """org.rdmad1.Error.Unresponsive: the adapter does not answer reads."""


class NoRoute(RdmadError, LookupError):
    """org.rdmad1.Error.NoRoute: the kernel has no route to the address
    (unreachable, prohibit, blackhole)."""


class NotRdma(RdmadError, LookupError):
    """org.rdmad1.Error.NotRdma: the address's egress netdev carries no RDMA port."""


class NoGid(RdmadError, LookupError):
    """org.rdmad1.Error.NoGid: the netdev is an RDMA port's, but no GID of
    the port holds the source address (the kernel fills the table shortly
    after an address change)."""


class AccessDenied(RdmadError, PermissionError):
    """org.freedesktop.DBus.Error.AccessDenied: polkit or the bus policy refused."""


class InteractiveAuthorizationRequired(AccessDenied):
    """polkit would ask for a password, and the call did not allow it."""


_BY_NAME = {
    "org.rdmad1.Error.InvalidArgument": InvalidArgument,
    "org.rdmad1.Error.NoSuchDevice": NoSuchDevice,
    "org.rdmad1.Error.Busy": Busy,
    "org.rdmad1.Error.Failed": Failed,
    "org.rdmad1.Error.NotSupported": NotSupported,
    "org.rdmad1.Error.Timeout": Timeout,
    "org.rdmad1.Error.Unresponsive": Unresponsive,
    "org.rdmad1.Error.NoRoute": NoRoute,
    "org.rdmad1.Error.NotRdma": NotRdma,
    "org.rdmad1.Error.NoGid": NoGid,
    "org.freedesktop.DBus.Error.AccessDenied": AccessDenied,
    "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired": InteractiveAuthorizationRequired,
    "org.freedesktop.DBus.Error.NoReply": Timeout,
    "org.freedesktop.DBus.Error.Timeout": Timeout,
    "org.freedesktop.DBus.Error.TimedOut": Timeout,
    "org.freedesktop.DBus.Error.UnknownObject": NoSuchDevice,
}

# The bus's own words for "nobody owns org.rdmad1 and nothing can start it".
_UNAVAILABLE = (
    "org.freedesktop.DBus.Error.ServiceUnknown",
    "org.freedesktop.DBus.Error.NameHasNoOwner",
)

HOW_TO_START = (
    "rdmad is not running on this bus and D-Bus activation did not start it; "
    "install it (Debian: apt install rdmad) and start it with "
    "'systemctl start rdmad.service'"
)


# One of rdmad's object paths in a message: /org/rdmad1/device/<dev>[/port/<n>|/netdev/<if>|/sriov].
_OBJECT_PATH = re.compile(r"/org/rdmad1/device/([A-Za-z0-9_]+)(?:/(port)/([0-9]+)|/(netdev)/([A-Za-z0-9_]+)|/(sriov))?")
_HEX = re.compile(r"_([0-9a-f]{2})")


def _label_decode(label: str) -> str:
    raw = bytes(_HEX.sub(lambda m: chr(int(m.group(1), 16)), label), "latin-1")
    return raw.decode("utf-8", "replace")


def _object_name(m: re.Match) -> str:
    dev = _label_decode(m.group(1))
    if m.group(2):
        return f"{dev}/{m.group(3)}"
    if m.group(4):
        return f"{dev} netdev {_label_decode(m.group(5))}"
    if m.group(6):
        return f"{dev} SR-IOV"
    return dev


def name_objects(message: str) -> str:
    """The message with each of rdmad's object paths as people name the
    object: ``/org/rdmad1/device/mlx5_5f0/port/1`` is ``mlx5_0/1``."""
    return _OBJECT_PATH.sub(_object_name, message)


def from_dbus(name: str, message: str) -> RdmadError:
    """The exception for a D-Bus error reply; object paths in rdmad's
    message are named as people name the objects (``mlx5_0/1``)."""
    if name in _UNAVAILABLE or name.startswith("org.freedesktop.DBus.Error.Spawn."):
        return RdmadUnavailable(f"{HOW_TO_START} ({name}: {message})", name)
    cls = _BY_NAME.get(name, RdmadError)
    return cls(name_objects(message) if message else name, name)
