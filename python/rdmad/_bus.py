"""The D-Bus connection under rdmad.client and rdmad.sts (jeepney, blocking).

One socket, calls answered by serial (several may be in flight: a lookup of
a device's ports is one round trip), and the signal rule of org.rdmad1(5):
a signal is believed only when it was broadcast (no destination) by the
sender that may send it: the bus driver for NameOwnerChanged, the current
unique owner of org.rdmad1 for rdmad's own signals. The owner is learned
with GetNameOwner after the match rules are in place, then only from the
bus driver's NameOwnerChanged.
"""

from __future__ import annotations

import os
import re
import select
import socket
import struct
import time
from typing import Callable, Iterable

from jeepney import DBusAddress, HeaderFields, MessageFlag, MessageType, new_method_call
from jeepney.io.blocking import open_dbus_connection

from . import errors

BUS_NAME = "org.rdmad1"
ROOT_PATH = "/org/rdmad1"
DBUS_NAME = "org.freedesktop.DBus"
DBUS_PATH = "/org/freedesktop/DBus"
PROPERTIES = "org.freedesktop.DBus.Properties"
OBJECT_MANAGER = "org.freedesktop.DBus.ObjectManager"

# sd-bus's default method call timeout.
DEFAULT_TIMEOUT = 25.0

_DBUS = DBusAddress(DBUS_PATH, bus_name=DBUS_NAME, interface=DBUS_NAME)

RDMAD_MATCH = f"type='signal',sender='{BUS_NAME}',path_namespace='{ROOT_PATH}'"
OWNER_MATCH = (
    f"type='signal',sender='{DBUS_NAME}',path='{DBUS_PATH}',interface='{DBUS_NAME}',"
    f"member='NameOwnerChanged',arg0='{BUS_NAME}'"
)
RDMAD_SIGNALS = {
    (PROPERTIES, "PropertiesChanged"),
    (OBJECT_MANAGER, "InterfacesAdded"),
    (OBJECT_MANAGER, "InterfacesRemoved"),
}


def _label_escapes(c: str, first: bool) -> bool:
    return not (("a" <= c <= "z") or ("A" <= c <= "Z") or (not first and "0" <= c <= "9"))


def path_encode(name: str) -> str:
    """sd_bus_path_encode()'s label escaping: mlx5_0 → mlx5_5f0, "" → "_"."""
    if not name:
        return "_"
    out = []
    for i, b in enumerate(name.encode("utf-8", "surrogateescape")):
        c = chr(b)
        out.append("_%02x" % b if b >= 0x80 or _label_escapes(c, i == 0) else c)
    return "".join(out)


_HEX = re.compile(r"_([0-9a-f]{2})")


def path_decode(label: str) -> str:
    if label == "_":
        return ""
    raw = bytes(_HEX.sub(lambda m: chr(int(m.group(1), 16)), label), "latin-1")
    return raw.decode("utf-8", "replace")


def device_path(name: str) -> str:
    return f"{ROOT_PATH}/device/{path_encode(name)}"


def split_path(path: str):
    """(device, port, netdev, is_sriov) of one of rdmad's object paths; device None if not one."""
    parts = path.split("/")
    if len(parts) < 5 or parts[1:4] != ["org", "rdmad1", "device"]:
        return None, None, None, False
    dev = path_decode(parts[4])
    if len(parts) == 5:
        return dev, None, None, False
    if len(parts) == 7 and parts[5] == "port" and parts[6].isdigit():
        return dev, int(parts[6]), None, False
    if len(parts) == 7 and parts[5] == "netdev":
        return dev, None, path_decode(parts[6]), False
    if len(parts) == 6 and parts[5] == "sriov":
        return dev, None, None, True
    return None, None, None, False


def unwrap_props(props: dict) -> dict:
    """a{sv} as jeepney gives it ({name: (sig, value)}) → {name: value}."""
    return {k: v[1] for k, v in props.items()}


class Connection:
    """A bus connection with calls by serial and the signal rule.

    ``address``: a D-Bus address (``unix:path=...``); None for the system bus
    (``$DBUS_SYSTEM_BUS_ADDRESS`` when set).
    """

    def __init__(self, address: str | None = None):
        target = address or "SYSTEM"
        try:
            self._conn = open_dbus_connection(target)
        except (OSError, RuntimeError, TimeoutError) as e:
            where = address or os.environ.get("DBUS_SYSTEM_BUS_ADDRESS") or "the system bus"
            raise errors.RdmadUnavailable(f"cannot connect to {where}: {e}; {errors.HOW_TO_START}") from e
        self.unique_name = self._conn.unique_name
        self._replies: dict[int, object] = {}
        self._signal_handlers: list[Callable] = []
        self._subscribed = False
        self.owner: str | None = None
        self.dropped = 0
        self._ping = None  # signals refused by the rule, for tests and debugging

    def close(self):
        self._conn.close()

    # ---- calls ----

    def message(self, path, interface, member, signature=None, body=(), destination=BUS_NAME,
                interactive=False, no_auto_start=False):
        msg = new_method_call(DBusAddress(path, bus_name=destination, interface=interface), member,
                              signature, body)
        if interactive:
            msg.header.flags |= MessageFlag.allow_interactive_authorization
        if no_auto_start:
            msg.header.flags |= MessageFlag.no_auto_start
        return msg

    def call(self, path, interface, member, signature=None, body=(), *, destination=BUS_NAME,
             timeout=DEFAULT_TIMEOUT, interactive=False):
        msg = self.message(path, interface, member, signature, body, destination, interactive)
        result = self.call_many([msg], timeout=timeout)[0]
        if isinstance(result, BaseException):
            raise result
        return result

    def call_many(self, messages: Iterable, *, timeout=DEFAULT_TIMEOUT) -> list:
        """Sends every message, then waits for every reply: one round trip.
        Returns the bodies, or the exception of each one that failed."""
        serials = []
        data = []
        for m in messages:
            serial = next(self._conn.outgoing_serial)
            serials.append(serial)
            data.append(m.serialise(serial=serial))
        if not serials:
            return []
        try:
            self._conn.sock.sendall(b"".join(data))
        except OSError as e:
            raise errors.RdmadUnavailable(f"the bus connection failed: {e}") from e
        deadline = time.monotonic() + timeout if timeout is not None else None
        pending = set(serials)
        while pending:
            self._read_one(deadline)
            pending -= self._replies.keys()
        return [self._replies.pop(s) for s in serials]

    def ping(self, timeout=DEFAULT_TIMEOUT):
        """Peer.Ping to rdmad: the barrier of a question (its reply comes
        after every signal rdmad sent before it). The message is made once;
        each ping only patches its serial (bytes 8-11 of the header)."""
        if self._ping is None:
            self._ping = bytearray(self.message(ROOT_PATH, "org.freedesktop.DBus.Peer", "Ping").serialise(serial=1))
        serial = next(self._conn.outgoing_serial)
        struct.pack_into("<I", self._ping, 8, serial)
        try:
            self._conn.sock.sendall(self._ping)
        except OSError as e:
            raise errors.RdmadUnavailable(f"the bus connection failed: {e}") from e
        deadline = time.monotonic() + timeout
        while serial not in self._replies:
            self._read_one(deadline)
        r = self._replies.pop(serial)
        if isinstance(r, BaseException):
            raise r

    def _read_one(self, deadline):
        while True:
            msg = self._conn.parser.get_next_message()
            if msg is not None:
                self._dispatch(msg)
                return
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not self._fill(remaining):
                raise errors.Timeout("no answer from rdmad in time")

    def _fill(self, timeout) -> bool:
        """Reads what the socket has, waiting up to timeout; False on timeout."""
        if timeout is None or timeout > 0:
            r, _, _ = select.select([self._conn.sock], [], [], timeout)
            if not r:
                return False
        try:
            b = self._conn.sock.recv(1 << 16, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return False
        except OSError as e:
            raise errors.RdmadUnavailable(f"the bus connection failed: {e}") from e
        if not b:
            raise errors.RdmadUnavailable("the bus closed the connection")
        self._conn.parser.add_data(b)
        return True

    def _dispatch(self, msg):
        hdr = msg.header
        t = hdr.message_type
        if t in (MessageType.method_return, MessageType.error):
            serial = hdr.fields.get(HeaderFields.reply_serial)
            if t is MessageType.error:
                name = hdr.fields.get(HeaderFields.error_name, "")
                text = msg.body[0] if msg.body and isinstance(msg.body[0], str) else ""
                self._replies[serial] = errors.from_dbus(name, text)
            else:
                self._replies[serial] = msg.body
        elif t is MessageType.signal:
            signal = self.believe(msg)
            if signal is not None:
                for handler in list(self._signal_handlers):
                    handler(signal)
        # Method calls to us: nothing here exports objects (the bus answers
        # for Peer pings; anything else gets no reply and the caller times out).

    def pump(self, timeout: float | None) -> bool:
        """Reads and dispatches messages already queued, and waits up to
        ``timeout`` seconds (None: forever) for one if none was. True if
        anything was read."""
        got = False
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            msg = self._conn.parser.get_next_message()
            if msg is None:
                wait = 0.0 if got else (None if deadline is None else max(0.0, deadline - time.monotonic()))
                if not self._fill(wait):
                    return got
                continue
            got = True
            self._dispatch(msg)

    # ---- signals ----

    def subscribe(self, handler: Callable):
        """Calls handler(Signal) for every believed signal of rdmad (and
        ("owner", new_owner) when the owner of org.rdmad1 changes)."""
        self._signal_handlers.append(handler)
        if self._subscribed:
            return
        # The rules first, then the owner: a change in between is seen.
        for rule in (OWNER_MATCH, RDMAD_MATCH):
            self.call(DBUS_PATH, DBUS_NAME, "AddMatch", "s", (rule,), destination=DBUS_NAME)
        self._subscribed = True
        try:
            self.owner = self.call(DBUS_PATH, DBUS_NAME, "GetNameOwner", "s", (BUS_NAME,),
                                   destination=DBUS_NAME)[0]
        except errors.RdmadUnavailable:
            self.owner = None

    def unsubscribe(self, handler: Callable):
        if handler in self._signal_handlers:
            self._signal_handlers.remove(handler)

    def believe(self, msg):
        """The signal if the rule believes it, else None (counted in ``dropped``)."""
        f = msg.header.fields
        if HeaderFields.destination in f or not self._subscribed:
            self.dropped += 1
            return None
        sender = f.get(HeaderFields.sender)
        iface = f.get(HeaderFields.interface)
        member = f.get(HeaderFields.member)
        path = f.get(HeaderFields.path)
        if sender == DBUS_NAME:
            if (iface, member, path) == (DBUS_NAME, "NameOwnerChanged", DBUS_PATH) and \
                    msg.body and msg.body[0] == BUS_NAME:
                self.owner = msg.body[2] or None
                return Signal(path, iface, member, msg.body)
            return None
        if self.owner is None or sender != self.owner or (iface, member) not in RDMAD_SIGNALS:
            self.dropped += 1
            return None
        return Signal(path, iface, member, msg.body)


class Signal:
    __slots__ = ("path", "interface", "member", "body")

    def __init__(self, path, interface, member, body):
        self.path, self.interface, self.member, self.body = path, interface, member, body

    def __repr__(self):
        return f"Signal({self.path!r}, {self.interface!r}, {self.member!r})"
