"""rdmad.client: RDMA devices, ports and link events from rdmad, in Python.

    from rdmad.client import Client

    with Client() as client:                  # the system bus
        port = client.device("mlx5_0").port(1)
        print(port.state_name, port.rate_speed, port.netdev_name)
        client.wait_for_state(port, "ACTIVE", timeout=30)
        for change in client.watch():
            if change.kind == "changed" and "state_name" in change.properties:
                print(change.device, change.port, change.properties["state_name"])

Objects (Device, Port, NetDev, Sriov) are read-only snapshots of what rdmad
published when they were fetched; fetch again (``client.device(name)``,
``obj.refresh()``) for newer values, or follow ``watch()``. A lookup of one
device asks rdmad about that device only; ``devices()`` makes one
GetManagedObjects call per client and keeps its answer until
``devices(refresh=True)``.

Signals are believed only when broadcast (no destination) by the current
unique owner of org.rdmad1, which the client learns with GetNameOwner and
then from the bus driver's NameOwnerChanged alone (org.rdmad1(5)); a signal
sent by any other connection, or sent to this client alone, is ignored.
"""

from __future__ import annotations

import re
import time
from collections import deque
from typing import NamedTuple, Union

from . import _bus
from ._bus import OBJECT_MANAGER, PROPERTIES, ROOT_PATH, Connection, split_path
from .errors import (  # noqa: F401  (re-exported: `from rdmad.client import NoSuchDevice`)
    AccessDenied, Busy, Failed, InteractiveAuthorizationRequired, InvalidArgument, NoGid, NoRoute,
    NoSuchDevice, NotRdma, NotSupported, RdmadError, RdmadUnavailable, Timeout, Unresponsive)

__all__ = ["Client", "Device", "Port", "NetDev", "Sriov", "Gid", "ResolvedAddress", "Change", "Watch"]

IFACE = "org.rdmad1."
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def snake(name: str) -> str:
    """D-Bus property name → PEP 8 attribute: StateName → state_name."""
    return _CAMEL.sub("_", name).lower()


def _camel(name: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in name.split("_"))


class Gid(NamedTuple):
    index: int
    gid: str
    type: str    # "RoCE v2", "IB/RoCE v1", "" on InfiniBand
    netdev: str  # "" when none


class ResolvedAddress(NamedTuple):
    """Which port and GID carry an address (``Client.resolve_address``)."""
    device: str     # "mlx5_0"
    port: int       # 1
    gid_index: int  # 3
    gid: str        # "0000:0000:0000:0000:0000:ffff:c0a8:010a", as Port.gids prints it
    gid_type: str   # "RoCE v2", "IB/RoCE v1", "" over IPoIB
    netdev: str     # the egress netdev's kernel name: "ens1f0np0"
    source: str     # the source address: "192.168.1.10"
    path: str       # the Port object


def _name_of(path: str) -> str | None:
    return None if path in ("/", "") else split_path(path)[0]


class _Object:
    """A read-only snapshot of one of rdmad's objects.

    Every D-Bus property is an attribute under its PEP 8 name
    (``StateName`` → ``state_name``); ``properties`` has them all.
    """

    _interface = ""
    _paths: dict = {}   # object-path properties → (attribute, how to turn a path into a value)
    __slots__ = ("_client", "path", "_props", "_snap")

    def __init__(self, client: "Client", path: str, props: dict, snap: dict | None = None):
        object.__setattr__(self, "_client", client)
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "_props", props)
        object.__setattr__(self, "_snap", snap)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only (a snapshot of rdmad's model)")

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        props = object.__getattribute__(self, "_props")
        key = _camel(name)
        if key in props:
            return props[key]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def __dir__(self):
        return sorted(set(super().__dir__()) | {snake(k) for k in self._props})

    @property
    def properties(self) -> dict:
        """Every property, PEP 8 names (object paths as rdmad gives them)."""
        return {snake(k): v for k, v in self._props.items()}

    def __eq__(self, other):
        return type(self) is type(other) and self.path == other.path and self._props == other._props

    def __hash__(self):
        return hash((type(self), self.path))

    def _fetch(self, path):
        return self._client._get_all(path, self._interface)

    def refresh(self):
        """A new snapshot of this object, from rdmad now."""
        return type(self)(self._client, self.path, self._fetch(self.path))


class Device(_Object):
    """An RDMA device (org.rdmad1.Device): ``name``, ``sysfs_path``,
    ``device_path``, ``driver``, ``node_type``, ``transport``,
    ``pci_address``, ``numa_node``, ``node_guid``, ``sys_image_guid``,
    ``firmware_version``, ``hca_type``, ``hw_rev``, ``board_id``,
    ``node_description``, ``port_numbers``, ``sriov_capable``, ``attributes``,
    ``power_attributes`` (and any property rdmad adds, by its PEP 8 name); ``physical_function``
    and ``virtual_functions`` as device names."""

    _interface = IFACE + "Device"
    __slots__ = ()

    def __repr__(self):
        return f"<rdmad Device {self.name} {self.transport}>"

    @property
    def physical_function(self) -> str | None:
        return _name_of(self._props.get("PhysicalFunction", "/"))

    @property
    def virtual_functions(self) -> list:
        return [_name_of(p) for p in self._props.get("VirtualFunctions", [])]

    @property
    def port_numbers(self) -> list:
        return list(self._props.get("PortNumbers", []))

    @property
    def netdev_names(self) -> list:
        return [split_path(p)[2] for p in self._props.get("NetDevs", [])]

    def port(self, number: int) -> "Port":
        """Port ``number``; NoSuchDevice if the device has no such port."""
        number = int(number)
        path = f"{self.path}/port/{number}"
        if self._snap is not None:
            props = self._snap.get(path, {}).get(Port._interface)
            if props is None:
                raise NoSuchDevice(f"{self.name} has no port {number}")
            return Port(self._client, path, props, self._snap)
        try:
            return Port(self._client, path, self._fetch_as(path, Port._interface))
        except NoSuchDevice:
            raise NoSuchDevice(f"{self.name} has no port {number}") from None

    @property
    def ports(self) -> list:
        """Every port, by number (one round trip)."""
        return self._children(self._props.get("Ports", []), Port)

    @property
    def netdevs(self) -> list:
        """The network interfaces of the device, by name (one round trip)."""
        return self._children(self._props.get("NetDevs", []), NetDev)

    def netdev(self, name: str) -> "NetDev":
        for n in self.netdevs:
            if n.name == name:
                return n
        raise NoSuchDevice(f"{self.name} has no netdev {name!r}")

    @property
    def sriov(self) -> "Sriov | None":
        """The SR-IOV control, or None when the device has none."""
        path = self._props.get("Sriov", "/")
        if path == "/":
            return None
        return self._children([path], Sriov)[0]

    def counters(self) -> dict:
        """The device-wide hw_counters, read now."""
        return self._client._device_counters(self.path)

    def _fetch_as(self, path, interface):
        return self._client._get_all(path, interface)

    def _children(self, paths, cls):
        if self._snap is not None:
            return [cls(self._client, p, self._snap[p][cls._interface], self._snap)
                    for p in paths if cls._interface in self._snap.get(p, {})]
        return [cls(self._client, p, props) for p, props in
                zip(paths, self._client._get_all_many(paths, cls._interface)) if props is not None]


class Port(_Object):
    """A port (org.rdmad1.Port): ``number``, ``transport``, ``state``
    ("4: ACTIVE"), ``state_num`` (4), ``state_name`` ("ACTIVE"),
    ``phys_state``, ``phys_state_num``, ``phys_state_name``, ``rate``,
    ``rate_speed`` (a float: 100.0, 2.5), ``rate_unit``, ``rate_info``,
    ``link_width``, ``link_speed``, ``link_layer``, ``lid``, ``sm_lid``,
    ``lid_mask_count``, ``sm_sl``, ``cap_mask``, ``gids`` (Gid tuples),
    ``attributes``, ``state_changed_usec``, ``state_changes``,
    ``link_events``; ``device_name``, ``netdev_name`` (None when none)."""

    _interface = IFACE + "Port"
    __slots__ = ()

    def __repr__(self):
        return f"<rdmad Port {self.name} {self.state_name}>"

    @property
    def device_name(self) -> str:
        return _name_of(self._props["Device"])

    @property
    def name(self) -> str:
        """"mlx5_0/1"."""
        return f"{self.device_name}/{self.number}"

    @property
    def rate_speed(self) -> float:
        return float(self._props.get("RateSpeed", 0.0))

    @property
    def netdev_name(self) -> str | None:
        p = self._props.get("NetDev", "/")
        return None if p == "/" else split_path(p)[2]

    @property
    def netdev(self) -> "NetDev | None":
        p = self._props.get("NetDev", "/")
        if p == "/":
            return None
        if self._snap is not None:
            props = self._snap.get(p, {}).get(NetDev._interface)
            return NetDev(self._client, p, props, self._snap) if props is not None else None
        return NetDev(self._client, p, self._fetch_as(p))

    @property
    def gids(self) -> list:
        return [Gid(*g) for g in self._props.get("Gids", [])]

    def _fetch_as(self, path):
        return self._client._get_all(path, NetDev._interface)

    def device(self) -> Device:
        return self._client.device(self.device_name)

    def counters(self) -> dict:
        """The port's counters, read now (GetCounters)."""
        return self._client.counters(self)

    def wait_for_state(self, state: str = "ACTIVE", timeout: float = 30.0) -> str:
        return self._client.wait_for_state(self, state, timeout)


class NetDev(_Object):
    """A network interface of a device (org.rdmad1.NetDev): ``name``,
    ``dev_port``, ``oper_state``, ``address``, ``mtu``, ``attributes``;
    ``device_name``, ``port_number`` (None when it serves no port)."""

    _interface = IFACE + "NetDev"
    __slots__ = ()

    def __repr__(self):
        return f"<rdmad NetDev {self.name} {self.oper_state}>"

    @property
    def device_name(self) -> str:
        return _name_of(self._props["Device"])

    @property
    def port_number(self) -> int | None:
        p = self._props.get("Port", "/")
        return None if p == "/" else split_path(p)[1]


class Sriov(_Object):
    """The SR-IOV control of a PF (org.rdmad1.Sriov): ``device_path``,
    ``num_vfs``, ``total_vfs``; ``device_name``; ``set_num_vfs(n)``."""

    _interface = IFACE + "Sriov"
    __slots__ = ()

    def __repr__(self):
        return f"<rdmad Sriov {self.device_name} {self.num_vfs}/{self.total_vfs}>"

    @property
    def device_name(self) -> str:
        return _name_of(self._props["Device"])

    def set_num_vfs(self, count: int, *, interactive: bool = False) -> None:
        self._client.set_num_vfs(self.device_name, count, interactive=interactive)


_KINDS = {IFACE + "Device": Device, IFACE + "Port": Port, IFACE + "NetDev": NetDev, IFACE + "Sriov": Sriov}


class Change:
    """One event from ``watch()``.

    ``kind``: "added", "removed", "changed" (properties of an object), or
    "owner" (rdmad started, stopped or restarted: ``owner`` is its new
    unique name or None). ``interface``: "Device", "Port", "NetDev",
    "Sriov", "Manager". ``device``, ``port``, ``netdev``: what the object is
    (None where not applicable). ``properties``: for "changed" the changed
    values, for "added" every value, PEP 8 names; ``invalidated``: names of
    properties whose new value the signal did not carry.
    """

    __slots__ = ("kind", "path", "interface", "device", "port", "netdev", "properties", "invalidated", "owner")

    def __init__(self, kind, path, interface, properties=None, invalidated=(), owner=None):
        self.kind = kind
        self.path = path
        self.interface = interface.rsplit(".", 1)[-1] if interface else None
        self.device, self.port, self.netdev, _ = split_path(path) if path else (None, None, None, False)
        self.properties = {snake(k): v for k, v in (properties or {}).items()}
        self.invalidated = [snake(n) for n in invalidated]
        self.owner = owner

    def __repr__(self):
        where = self.device if self.port is None else f"{self.device}/{self.port}"
        if self.netdev:
            where = f"{self.device} netdev {self.netdev}"
        if self.kind == "owner":
            return f"<Change owner {self.owner}>"
        return f"<Change {self.kind} {self.interface} {where} {self.properties}>"


class Watch:
    """An iterator of Change, made by ``Client.watch()``: subscribed from the
    moment it is made, so nothing that happens after ``watch()`` returns is
    missed. Ends after ``timeout`` seconds if one was given; ``close()``
    (or leaving a ``with`` block) unsubscribes."""

    def __init__(self, client: "Client", timeout: float | None):
        self._client = client
        self._queue: deque = deque()
        self._pending: deque = deque()
        self._deadline = None if timeout is None else time.monotonic() + timeout
        self._closed = False
        client._conn.subscribe(self._queue.append)

    def __iter__(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if not self._closed:
            self._closed = True
            self._client._conn.unsubscribe(self._queue.append)

    def __next__(self) -> Change:
        while True:
            if self._pending:
                return self._pending.popleft()
            if self._closed:
                raise StopIteration
            if self._queue:
                self._pending.extend(_changes(self._queue.popleft()))
                continue
            remaining = None if self._deadline is None else self._deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                self.close()
                raise StopIteration
            self._client._conn.pump(remaining)


def _changes(sig) -> list:
    if sig.member == "NameOwnerChanged":
        return [Change("owner", None, None, owner=sig.body[2] or None)]
    if sig.member == "PropertiesChanged":
        iface, changed, invalidated = sig.body
        return [Change("changed", sig.path, iface, _bus.unwrap_props(changed), invalidated)]
    if sig.member == "InterfacesAdded":
        path, ifaces = sig.body
        return [Change("added", path, i, _bus.unwrap_props(p)) for i, p in ifaces.items()
                if i.startswith(IFACE)]
    if sig.member == "InterfacesRemoved":
        path, ifaces = sig.body
        return [Change("removed", path, i) for i in ifaces if i.startswith(IFACE)]
    return []


PortRef = Union[Port, str, tuple]


class _Model:
    """rdmad's objects as this client last heard of them: filled by GetAll
    (one device and its ports, netdevs and SR-IOV at a time) or one
    GetManagedObjects, then kept current by rdmad's signals (believed by
    the rule of _bus.Connection), as rdmad-exporter keeps its model.

    ``sync()`` is the barrier of a question: a Peer.Ping to rdmad, whose
    reply comes after every signal rdmad sent before it, so an answer from
    the model is as current as a Get would have been. Property dicts are
    replaced, never changed in place: objects made from them stay snapshots.
    """

    def __init__(self, client: "Client"):
        self._client = client
        self.objs: dict = {}        # path → {interface: {property: value}}
        self.loaded: set = set()    # device paths whose subtree is complete here
        self.complete = False       # every object of rdmad is here
        self._pending = None        # signals received while a fetch was in flight
        self.generation = 0         # bumped by every change applied
        client._conn.subscribe(self._on_signal)

    def _on_signal(self, sig):
        if self._pending is not None:
            self._pending.append(sig)
        self._apply(sig)

    def clear(self):
        self.objs, self.loaded, self.complete = {}, set(), False

    def _apply(self, sig):
        self.generation += 1
        m = sig.member
        if m == "NameOwnerChanged":
            self.clear()  # rdmad restarted or left: nothing we know holds
        elif m == "PropertiesChanged":
            iface, changed, invalidated = sig.body
            ifaces = self.objs.get(sig.path)
            if ifaces is None or iface not in ifaces:
                return
            if invalidated:  # no value given: fetch the device again when asked
                dev = _bus.device_path(split_path(sig.path)[0] or "")
                self.loaded.discard(dev)
                self.complete = False
            new = dict(ifaces[iface])
            new.update(_bus.unwrap_props(changed))
            self.objs[sig.path] = {**ifaces, iface: new}
        elif m == "InterfacesAdded":
            path, ifaces = sig.body
            self.objs[path] = {**self.objs.get(path, {}),
                               **{i: _bus.unwrap_props(p) for i, p in ifaces.items()}}
            if Device._interface in ifaces:
                # rdmad announces a device's objects together, before it
                # answers a later Ping: after sync() the subtree is whole.
                self.loaded.add(path)
        elif m == "InterfacesRemoved":
            path, ifaces = sig.body
            left = {i: p for i, p in self.objs.get(path, {}).items() if i not in ifaces}
            if left:
                self.objs[path] = left
            else:
                self.objs.pop(path, None)
            if Device._interface in ifaces:
                self.loaded.discard(path)

    def sync(self):
        self._client._conn.ping(timeout=self._client.timeout)

    def _fetching(self, fetch):
        """Runs fetch() (which returns {path: {interface: props}}), then
        replays the signals that came meanwhile over its answer, in order:
        a change signalled after rdmad answered is not lost, and replaying
        one signalled before only sets the values that later ones set again."""
        self._pending = []
        try:
            fetched = fetch()
        finally:
            pending, self._pending = self._pending, None
        self.objs.update(fetched)
        for sig in pending:
            self._apply(sig)
        return fetched

    def device(self, path: str) -> dict:
        """The device's subtree {path: interfaces}; NoSuchDevice if rdmad has none."""
        if path not in self.loaded or path not in self.objs:
            def fetch():
                props = self._client._get_all(path, Device._interface)
                kids = [(p, Port._interface) for p in props.get("Ports", [])]
                kids += [(p, NetDev._interface) for p in props.get("NetDevs", [])]
                if props.get("Sriov", "/") != "/":
                    kids.append((props["Sriov"], Sriov._interface))
                msgs = [self._client._conn.message(p, PROPERTIES, "GetAll", "s", (i,)) for p, i in kids]
                out = {path: {Device._interface: props}}
                for (p, i), r in zip(kids, self._client._conn.call_many(msgs, timeout=self._client.timeout)):
                    if isinstance(r, NoSuchDevice):
                        continue  # gone meanwhile; its signal is in the replay
                    if isinstance(r, BaseException):
                        raise r
                    out.setdefault(p, {})[i] = _bus.unwrap_props(r[0])
                return out
            self._fetching(fetch)
            self.loaded.add(path)
        return self._subtree(path)

    def _subtree(self, path: str) -> dict:
        ifaces = self.objs.get(path)
        if ifaces is None or Device._interface not in ifaces:
            raise NoSuchDevice(f"no device {_name_of(path)!r}")
        props = ifaces[Device._interface]
        tree = {path: ifaces}
        kids = list(props.get("Ports", [])) + list(props.get("NetDevs", []))
        if props.get("Sriov", "/") != "/":
            kids.append(props["Sriov"])
        for k in kids:
            if k in self.objs:
                tree[k] = self.objs[k]
        return tree

    def everything(self) -> dict:
        if not self.complete:
            def fetch():
                reply = self._client._conn.call(ROOT_PATH, OBJECT_MANAGER, "GetManagedObjects",
                                                timeout=self._client.timeout)[0]
                self.objs = {}
                return {p: {i: _bus.unwrap_props(props) for i, props in ifaces.items()}
                        for p, ifaces in reply.items()}
            self._fetching(fetch)
            self.loaded = {p for p, i in self.objs.items() if Device._interface in i}
            self.complete = True
        return dict(self.objs)


class Client:
    """A connection to rdmad.

    ``address``: a D-Bus address for tests (``unix:path=/tmp/bus``); the
    system bus by default (``$DBUS_SYSTEM_BUS_ADDRESS`` when set).
    ``timeout``: seconds a call may take (25, as sd-bus). Raises
    RdmadUnavailable, saying how to start rdmad, when the bus cannot be
    reached or rdmad is neither running nor D-Bus activatable.

    ``follow=True`` (or ``follow()``): the client keeps a model of what it
    has asked, current by rdmad's signals; each lookup is then one round
    trip (a Ping to rdmad that orders it after every signal rdmad sent
    before) whatever its size, and ``devices()`` is always current with
    one GetManagedObjects in the client's life (rdmad.sts works this way).
    """

    def __init__(self, address: str | None = None, *, timeout: float = _bus.DEFAULT_TIMEOUT,
                 follow: bool = False):
        self._conn = Connection(address)
        self.timeout = timeout
        self._gmo = None
        self._model = None
        # D-Bus activation starts rdmad where it is installed; the error says
        # what to do where it is not.
        try:
            self._conn.call(ROOT_PATH, "org.freedesktop.DBus.Peer", "Ping", timeout=timeout)
        except BaseException:
            self._conn.close()
            raise
        if follow:
            self.follow()

    def follow(self) -> "Client":
        """Keeps a model by signals from now on (see the class); idempotent."""
        if self._model is None:
            self._model = _Model(self)
        return self

    def _device_from_model(self, name: str, sync: bool = True) -> Device:
        m = self._model
        if sync:
            m.sync()
        else:
            self._conn.pump(0)  # what has arrived already
        path = _bus.device_path(name)
        try:
            tree = m.device(path)
        except NoSuchDevice:
            # Not where its name says (or not there): rdmad's own answer.
            path = self._manager("GetDeviceByName", "s", (name,))[0]
            tree = m.device(path)
        return Device(self, path, tree[path][Device._interface], tree)

    def close(self):
        self._conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def unique_name(self) -> str:
        return self._conn.unique_name

    # ---- plumbing ----

    def _get_all(self, path, interface):
        return _bus.unwrap_props(self._conn.call(path, PROPERTIES, "GetAll", "s", (interface,),
                                                 timeout=self.timeout)[0])

    def _get_all_many(self, paths, interface):
        msgs = [self._conn.message(p, PROPERTIES, "GetAll", "s", (interface,)) for p in paths]
        out = []
        for r in self._conn.call_many(msgs, timeout=self.timeout):
            if isinstance(r, NoSuchDevice):
                out.append(None)  # gone meanwhile
            elif isinstance(r, BaseException):
                raise r
            else:
                out.append(_bus.unwrap_props(r[0]))
        return out

    def _manager(self, member, signature=None, body=(), timeout=None):
        return self._conn.call(ROOT_PATH, IFACE + "Manager", member, signature, body,
                               timeout=timeout or self.timeout)

    def _device_counters(self, path):
        return dict(self._conn.call(path, IFACE + "Device", "GetCounters", timeout=self.timeout)[0])

    # ---- the model ----

    @property
    def version(self) -> str:
        return self._conn.call(ROOT_PATH, PROPERTIES, "Get", "ss", (IFACE + "Manager", "Version"))[0][1]

    @property
    def poll_interval_ms(self) -> int:
        return self._conn.call(ROOT_PATH, PROPERTIES, "Get", "ss", (IFACE + "Manager", "PollIntervalMs"))[0][1]

    def device_names(self) -> list:
        """The names of every device, sorted (one property read)."""
        paths = self._conn.call(ROOT_PATH, PROPERTIES, "Get", "ss", (IFACE + "Manager", "Devices"))[0][1]
        return [_name_of(p) for p in paths]

    def device(self, name: str) -> Device:
        """The device ``name`` now; NoSuchDevice if rdmad has none."""
        if self._model is not None:
            return self._device_from_model(name)
        path = _bus.device_path(name)
        try:
            return Device(self, path, self._get_all(path, Device._interface))
        except NoSuchDevice:
            pass
        # Not where its name says (or not there): rdmad's own answer.
        path = self._manager("GetDeviceByName", "s", (name,))[0]
        return Device(self, path, self._get_all(path, Device._interface))

    def devices(self, *, refresh: bool = False) -> list:
        """Every device, sorted by name, from one GetManagedObjects call kept
        until ``refresh=True``; their ports, netdevs and SR-IOV objects come
        from the same answer."""
        if self._model is not None:
            self._model.sync()
            objs = self._model.everything()
            devs = [Device(self, p, i[Device._interface], objs) for p, i in objs.items()
                    if Device._interface in i]
            return sorted(devs, key=lambda d: d.name)
        if self._gmo is None or refresh:
            reply = self._conn.call(ROOT_PATH, OBJECT_MANAGER, "GetManagedObjects", timeout=self.timeout)[0]
            self._gmo = {p: {i: _bus.unwrap_props(props) for i, props in ifaces.items()}
                         for p, ifaces in reply.items()}
        devs = [Device(self, p, i[Device._interface], self._gmo) for p, i in self._gmo.items()
                if Device._interface in i]
        return sorted(devs, key=lambda d: d.name)

    def _port_path(self, port: PortRef) -> str:
        if isinstance(port, Port):
            return port.path
        if isinstance(port, tuple):
            dev, num = port
        elif isinstance(port, str) and "/" in port:
            dev, _, num = port.rpartition("/")
        else:
            raise InvalidArgument(f"not a port: {port!r} (a Port, 'mlx5_0/1' or ('mlx5_0', 1))")
        try:
            num = int(num)
        except ValueError:
            raise InvalidArgument(f"not a port number: {num!r}") from None
        return f"{_bus.device_path(dev)}/port/{num}"

    def port(self, port: PortRef) -> Port:
        """A port by 'mlx5_0/1' or ('mlx5_0', 1)."""
        path = self._port_path(port)
        if self._model is not None:
            dev, num, _, _ = split_path(path)
            return self._device_from_model(dev).port(num)
        try:
            return Port(self, path, self._get_all(path, Port._interface))
        except NoSuchDevice:
            raise NoSuchDevice(f"no port {port!r}") from None

    def wait_for_state(self, port: PortRef, state: str = "ACTIVE", timeout: float = 30.0) -> str:
        """Waits until the port is in ``state`` ("ACTIVE", "DOWN", ...); returns
        the state rdmad saw. Answered by rdmad's WaitForState (no polling):
        Timeout after ``timeout`` seconds (its message says the state the
        port is in), NoSuchDevice if the port goes away. InvalidArgument
        for a negative or not finite timeout (0: rdmad answers at once)."""
        try:
            seconds = float(timeout)
        except (TypeError, ValueError):
            raise InvalidArgument(f"not a timeout: {timeout!r} (seconds, 0 or more)") from None
        if not 0 <= seconds < float("inf"):
            raise InvalidArgument(f"not a timeout: {timeout!r} (seconds, 0 or more)")
        path = self._port_path(port)
        ms = min(int(seconds * 1000), 0xFFFFFFFF)
        try:
            return self._conn.call(path, IFACE + "Port", "WaitForState", "su", (state, ms),
                                   timeout=seconds + 5.0)[0]
        except Timeout as e:
            # rdmad's reason ("...; it is INIT.") kept: what the port is in is the useful part.
            now = _STATE_NOW.search(str(e)) if e.dbus_name == "org.rdmad1.Error.Timeout" else None
            raise Timeout(f"{_describe(port)}: not {state} after {seconds:g} s"
                          + (f"; it is {now.group(1)}" if now else ""), e.dbus_name) from None

    def watch(self, timeout: float | None = None) -> Watch:
        """An iterator of Change for every device, port, netdev or SR-IOV
        object rdmad adds, removes or changes (and rdmad's restarts), from
        now on; ends after ``timeout`` seconds if one is given."""
        return Watch(self, timeout)

    def counters(self, port: PortRef) -> dict:
        """The port's counters, read now: {name: value}."""
        path = self._port_path(port)
        return dict(self._conn.call(path, IFACE + "Port", "GetCounters", timeout=self.timeout)[0])

    def all_counters(self) -> dict:
        """Every port's counters in one call: {(device, port): {name: value}};
        port 0 holds the device-wide hw_counters."""
        rows = self._manager("GetAllCounters")[0]
        return {(dev, num): dict(c) for dev, num, c in rows}

    def resolve_address(self, address: str) -> ResolvedAddress:
        """Which port and GID carry ``address`` (an IPv4 or IPv6 address, the
        peer to reach or one of this host's own; an IPv6 link-local one may
        carry a ``%ifname`` scope): the kernel's route gives the egress
        netdev and source address, the GID tables the entry (RoCE v2 before
        v1; over IPoIB the port GID of the netdev's hardware address).
        Raises NoRoute, NotRdma, NoGid (each a LookupError), ValueError
        (InvalidArgument) for anything but an address."""
        if not isinstance(address, str):
            raise InvalidArgument(f"not an address: {address!r} (a str such as '192.168.1.20')")
        try:
            path, index, gid, gid_type, netdev, source = self._manager("ResolveAddress", "s", (address,))
        except RdmadError as e:
            if e.dbus_name == "org.freedesktop.DBus.Error.InvalidArgs":
                raise InvalidArgument(str(e), e.dbus_name) from None
            raise
        dev, num, _, _ = split_path(path)
        if dev is None or num is None:
            raise RdmadError(f"rdmad answered {path!r}, which is no port object")
        return ResolvedAddress(dev, num, index, gid, gid_type, netdev, source, path)

    def rescan(self) -> None:
        """Makes rdmad re-read everything now (the bus policy may reserve it to root)."""
        self._manager("Rescan")

    def set_num_vfs(self, device: Union[Device, str], count: int, *, interactive: bool = False) -> None:
        """Sets the number of SR-IOV VFs of ``device`` through rdmad (polkit
        action org.rdmad1.set-num-vfs; ``interactive=True`` lets polkit ask
        for a password). NotSupported if the device has no SR-IOV control."""
        name = device.name if isinstance(device, Device) else device
        dev = self.device(name)
        path = dev._props.get("Sriov", "/")
        if path == "/":
            raise NotSupported(f"{name} has no SR-IOV control")
        timeout = max(self.timeout, 120.0) if interactive else self.timeout
        self._conn.call(path, IFACE + "Sriov", "SetNumVfs", "u", (int(count),), timeout=timeout,
                        interactive=interactive)
        m = self._model
        if m is not None and Sriov._interface in m.objs.get(path, {}):
            # Success means rdmad re-read the count; its NumVfs signal
            # comes after the reply, so the model takes it from here.
            ifaces = m.objs[path]
            m.objs[path] = {**ifaces, Sriov._interface: {**ifaces[Sriov._interface], "NumVfs": int(count)}}


# The end of rdmad's Timeout message: "...; it is INIT."
_STATE_NOW = re.compile(r"; it is ([^.;]+)\.?$")


def _describe(port) -> str:
    return port.name if isinstance(port, Port) else (f"{port[0]}/{port[1]}" if isinstance(port, tuple) else str(port))
