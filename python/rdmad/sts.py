"""rdmad.sts: a drop-in for sts-libs' ``sts.rdma``, answered by rdmad.

A test suite changes ``from sts import rdma`` to ``from rdmad import sts as
rdma`` and nothing else: the same names (``RdmaDevice``, ``Port``,
``NetDev``, ``Power``, ``Sriov``, ``exists_device``, ``exists_rdma``,
``RDMA_SYSFS_BASE``), fields, methods and values as sts.rdma computes from
sysfs, for both of its forms: the released 1.16.0 (dataclasses that read at
construction, every file an attribute named after its stem) and the newer
pydantic one (``RdmaDevice(ibdev=...).discover()``, ``sysfs_attrs``,
``model_dump()``), without pydantic. Construction reads, ``discover()``
re-reads and returns the object.

Answers come from one connection's model of rdmad's objects, filled on
first use of each device and kept current by rdmad's signals: each
construction, ``discover()``, ``exists_device()`` and ``read_numvfs()`` is
one round trip (a Ping that orders it after every signal rdmad sent
before), ``get_ports()``, ``get_netdevs()`` and the other getters apply what
has arrived meanwhile without a round trip.

Nothing here reads sysfs (but ``exists_rdma()`` without rdmad): every value is rdmad's (its ``Attributes`` maps,
with white space stripped as sts strips it; paths from ``SysfsPath`` and
``DevicePath``), and ``set_numvfs`` goes through rdmad's ``SetNumVfs``, so
it needs no root where polkit allows it. The bus is the system bus, or
``$DBUS_SYSTEM_BUS_ADDRESS``; ``use_client()`` sets another.

Where sts.rdma fails or differs, this module does what sts clearly meant:

* a device without a ``net`` directory (rxe, siw, hfi1, any virtual
  device): sts raises FileNotFoundError in ``get_netdevs()`` and
  ``get_netdev()``; here they return ``[]`` and ``None``;
* a ``rate`` of fewer than four words (old kernels' ``10 Gb/sec (4X)``): sts
  raises IndexError; here ``rate_info`` is ``"4X"`` (with fewer than three
  words, the missing parts are ``None``);
* a ``state`` or ``phys_state`` without ``": "``: sts raises IndexError;
  here ``state_str``/``phys_state_str`` is ``None``;
* a non-UTF-8 attribute: sts raises UnicodeDecodeError (Sriov skips the
  file); here it is decoded with U+FFFD for each invalid sequence (rdmad's
  rule), and a NUL byte is U+FFFD too (a D-Bus string cannot carry it);
* order: sts lists ports and netdevs in the kernel's directory order; here
  ports are sorted by number and netdevs by name;
* a device that does not exist: sts raises FileNotFoundError from
  ``iterdir()``; here ``DeviceNotFound``, a FileNotFoundError too;
* ``exists_rdma()``: sts says whether ``/sys/class/infiniband`` exists (it
  does once ib_core is loaded, even with no device); here, whether rdmad
  publishes at least one device. It returns a bool in every case, as suites
  use it as a skip guard: when rdmad is not on the bus (or the bus is not
  there), it answers as sts does, from ``/sys/class/infiniband``, and logs
  once (logger ``rdmad.sts``, a warning) that rdmad is absent;
* files only root may read (mode without o+r): sts run as root reads them;
  rdmad publishes only what every user may read;
* ``Sriov``: sts reads every file of the PCI function's directory; rdmad
  publishes only its SR-IOV control, so ``Sriov`` has ``sriov_numvfs`` and
  ``sriov_totalvfs`` (attributes and ``sysfs_attrs``) and nothing else of
  the PCI function;
* ``set_numvfs``: errors are rdmad's (AccessDenied, a PermissionError, where
  sts gets PermissionError from the write; InvalidArgument above
  ``sriov_totalvfs``, where the kernel gives ERANGE);
* a soft device (siw, rxe) over a NIC with SR-IOV has no SR-IOV control in
  rdmad: ``is_sriov_capable`` is False and ``get_sriov()`` None where sts
  reports the NIC's;
* a file whose stem is the name of a method (``discover``) would replace
  the method in sts; here it is only in ``sysfs_attrs``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import ClassVar

from .client import Client, Device as _Device
from .errors import InvalidArgument, NoSuchDevice, RdmadError, RdmadUnavailable  # noqa: F401

__all__ = ["RDMA_SYSFS_BASE", "exists_rdma", "exists_device", "Port", "Power", "NetDev", "Sriov",
           "RdmaDevice", "DeviceNotFound", "use_client"]

# Base path for RDMA devices in sysfs, as sts spells it.
RDMA_SYSFS_BASE = "/sys/class/infiniband/"

_client: Client | None = None
_log = logging.getLogger(__name__)
_told_absent = False  # exists_rdma() said once that rdmad is not there


def use_client(client: Client | None) -> None:
    """Answers from this Client (None: a new one on the system bus at the
    next question). The client is made to follow rdmad's signals."""
    global _client
    _client = client.follow() if client is not None else None


def _c() -> Client:
    global _client
    if _client is None:
        _client = Client(follow=True)
    return _client


class DeviceNotFound(NoSuchDevice, FileNotFoundError):
    """No such RDMA device (sts: FileNotFoundError from the directory walk)."""


def exists_rdma() -> bool:
    """Whether the system has RDMA devices (rdmad publishes at least one).

    Always a bool, never an exception, so that it serves as a skip guard:
    without rdmad (or without a bus) the answer is sts-libs' own, whether
    ``/sys/class/infiniband`` exists, and a warning says once that rdmad is
    absent."""
    global _told_absent
    try:
        c = _c()
        m = c._model
        m.sync()
        # A device the model holds after the barrier is there (its removal
        # would have come first); else rdmad's list.
        if any(_Device._interface in i for i in m.objs.values()):
            return True
        return bool(c.device_names())
    except RdmadUnavailable as e:
        if not _told_absent:
            _told_absent = True
            _log.warning("rdmad is not running (%s); exists_rdma() answers from %s as sts-libs does", e,
                         RDMA_SYSFS_BASE)
        return Path(RDMA_SYSFS_BASE).is_dir()


def exists_device(ibdev: str) -> bool:
    """Whether RDMA device ``ibdev`` exists."""
    try:
        _device(ibdev)
    except NoSuchDevice:
        return False
    return True


def _device(name: str, sync: bool = True) -> _Device:
    """The device from the client's model: after a barrier (a question of
    its own: construction, discover(), exists_device()), or with what has
    arrived already (get_ports() and the others, as sts re-reads)."""
    try:
        return _c()._device_from_model(name, sync=sync)
    except NoSuchDevice:
        raise DeviceNotFound(f"No such RDMA device: {RDMA_SYSFS_BASE}{name}") from None


def _current(obj: "RdmaDevice") -> _Device:
    """The device of an RdmaDevice as the model has it now, without a round
    trip: what discover() got, unless a signal has changed the model since."""
    c = _c()
    c._conn.pump(0)
    if obj._gen != c._model.generation:
        obj._dev = _device(obj.ibdev, sync=False)
        obj._gen = c._model.generation
    return obj._dev


def _text(value: str) -> str:
    # sts: read_text().strip(); rdmad removed the trailing white space only.
    return value.strip()


def _stem(name: str) -> str:
    """Path(name).stem, without making a Path: the name without its last suffix."""
    i = name.rfind(".")
    return name[:i] if 0 < i < len(name) - 1 else name


def _split_rate(rate: str):
    """(rate_speed, rate_unit, rate_info) as sts splits '100 Gb/sec (4X EDR)'."""
    w = rate.split()
    speed = w[0] if len(w) > 0 else None
    unit = w[1] if len(w) > 1 else None
    if len(w) >= 4:
        info = f'{w[2].strip("(")} {w[3].strip(")")}'
    elif len(w) == 3:
        info = w[2].strip("(").strip(")")
    else:
        info = None
    return speed, unit, info


def _split_state(state: str):
    num = state.split(":")[0]
    parts = state.split(": ")
    return num, (parts[1] if len(parts) > 1 else None)


class _SysfsModel:
    """What every sts object has: ``path``, ``sysfs_attrs`` (file name →
    stripped text) and each file as an attribute named after its stem."""

    _fields: ClassVar[tuple] = ("path", "sysfs_attrs")
    _computed: ClassVar[tuple] = ()

    def __init__(self, path=None, **kwargs):
        if path is None and "path" in kwargs:
            path = kwargs.pop("path")
        self.path = Path(path) if path is not None else None
        self.sysfs_attrs = {}
        for f in self._fields:
            if f not in ("path", "sysfs_attrs"):
                setattr(self, f, None)
        self.discover()

    def _set_attrs(self, attrs: dict):
        """Files as sts reads them: every one stripped, in sysfs_attrs and as an attribute."""
        reserved = _reserved(type(self))
        out = self.sysfs_attrs = {}
        d = self.__dict__
        for name, value in attrs.items():
            text = out[name] = value.strip()
            stem = _stem(name)
            if stem not in reserved:
                d[stem] = text

    def discover(self):
        return self

    def model_dump(self, *, mode: str = "python", include=None, exclude=None) -> dict:
        """What the pydantic model's model_dump() returns: the declared
        fields, then the computed ones; Paths stay Path objects, or become
        strings with ``mode="json"`` (pydantic's two modes); ``include``
        and ``exclude``: sets of top-level field names."""
        names = [f for f in self._fields + self._computed
                 if (include is None or f in include) and (exclude is None or f not in exclude)]
        out = {f: _copy(getattr(self, f, None)) for f in names}
        if mode == "json":
            out = {k: _jsonable(v) for k, v in out.items()}
        elif mode != "python":
            raise ValueError(f"mode must be 'python' or 'json', not {mode!r}")
        return out

    def __repr__(self):
        shown = ", ".join(f"{f}={getattr(self, f, None)!r}" for f in self._fields if f != "sysfs_attrs")
        return f"{type(self).__name__}({shown})"

    def __eq__(self, other):
        return type(self) is type(other) and self.model_dump() == other.model_dump()

    __hash__ = None


_RESERVED: dict = {}


def _reserved(cls) -> frozenset:
    """The names a file must not replace: the class's methods and properties."""
    r = _RESERVED.get(cls)
    if r is None:
        r = _RESERVED[cls] = frozenset(n for n in dir(cls) if callable(getattr(cls, n, None))
                                       or isinstance(getattr(cls, n, None), property))
    return r


def _jsonable(v):
    if isinstance(v, Path):
        return str(v)
    if isinstance(v, list):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    return v


def _copy(v):
    if isinstance(v, dict):
        return dict(v)
    if isinstance(v, list):
        return list(v)
    return v


def _port_ref(path: Path):
    """(device, port) of /sys/class/infiniband/<dev>/ports/<n>."""
    parts = path.parts
    if len(parts) >= 3 and parts[-2] == "ports":
        return parts[-3], parts[-1]
    raise InvalidArgument(f"not a port's sysfs path: {path}")


class Port(_SysfsModel):
    """An RDMA port: ``rate``, ``state``, ``phys_state`` (raw), ``rate_speed``,
    ``rate_unit``, ``rate_info``, ``state_num``, ``state_str``,
    ``phys_state_num``, ``phys_state_str`` (split as sts splits them), the
    port directory's other files as attributes, ``name``."""

    _fields = ("path", "sysfs_attrs", "rate", "state", "phys_state", "rate_speed", "rate_unit", "rate_info",
               "state_num", "state_str", "phys_state_num", "phys_state_str")
    _computed = ("name",)

    def __init__(self, path=None, _attrs=None, **kwargs):
        self._given = _attrs
        super().__init__(path, **kwargs)

    @property
    def name(self) -> str:
        """The port's number, as the directory's name ("1")."""
        return self.path.name

    @name.setter
    def name(self, value):  # 1.16.0 assigned it; it is always the path's
        pass

    def discover(self):
        if self._given is not None:
            attrs, self._given = self._given, None
        else:
            dev, num = _port_ref(self.path)
            try:
                attrs = _c().port((dev, num)).attributes
            except NoSuchDevice:
                raise FileNotFoundError(f"No such RDMA port: {self.path}") from None
        for f in self._fields[2:]:
            setattr(self, f, None)
        self._set_attrs(attrs)
        if self.rate:
            self.rate_speed, self.rate_unit, self.rate_info = _split_rate(self.rate)
        if self.state:
            self.state_num, self.state_str = _split_state(self.state)
        if self.phys_state:
            self.phys_state_num, self.phys_state_str = _split_state(self.phys_state)
        return self


class Power(_SysfsModel):
    """The files of ``<device>/power/``; ``path`` is the device's."""

    def __init__(self, path=None, _attrs=None, **kwargs):
        self._given = _attrs
        super().__init__(path, **kwargs)

    def discover(self):
        if self._given is not None:
            attrs, self._given = self._given, None
        else:
            attrs = _device(self.path.name).power_attributes
        self._set_attrs(attrs)
        return self


class NetDev(_SysfsModel):
    """A network interface of the device: its directory's files as
    attributes, ``dev_port`` among them."""

    _fields = ("path", "sysfs_attrs", "dev_port")

    def __init__(self, path=None, _attrs=None, **kwargs):
        self._given = _attrs
        super().__init__(path, **kwargs)

    def discover(self):
        if self._given is not None:
            attrs, self._given = self._given, None
        else:
            attrs = _netdev_by_path(self.path)
        self.dev_port = None
        self._set_attrs(attrs)
        return self


def _netdev_by_path(path: Path) -> dict:
    """A NetDev made from a path alone: the device whose PCI function holds it."""
    parent = str(path.parent.parent)
    for d in _c().devices(refresh=True):
        if d.device_path == parent:
            for n in d.netdevs:
                if n.name == path.name:
                    return n.attributes
    raise FileNotFoundError(f"No such network interface of an RDMA device: {path}")


class Sriov(_SysfsModel):
    """The SR-IOV control of the device's PCI function (``path``):
    ``sriov_numvfs``, ``sriov_totalvfs``, ``read_numvfs()``,
    ``set_numvfs(num)`` (also ``set_sriov_numvfs``), through rdmad."""

    _fields = ("path", "sysfs_attrs", "sriov_numvfs", "sriov_totalvfs")
    _computed = ("sriov_numvfs_path",)

    def __init__(self, path=None, _device_name=None, _props=None, **kwargs):
        self._device_name = _device_name
        self._given = _props
        super().__init__(path, **kwargs)

    @property
    def sriov_numvfs_path(self) -> Path:
        """Path to the numvfs control file, derived from path."""
        return self.path / "sriov_numvfs"

    def _name(self) -> str:
        if self._device_name is None:
            for d in _c().devices(refresh=True):
                if d.device_path == str(self.path) and d.sriov is not None:
                    self._device_name = d.name
                    break
            else:
                raise FileNotFoundError(f"No SR-IOV control of an RDMA device at {self.path}")
        return self._device_name

    def _sriov(self):
        # Asked afresh, not from the model: rdmad announces NumVfs after it
        # answers SetNumVfs, and read_numvfs() right after set_numvfs() must
        # see the new count (a Get does, a Ping barrier may not).
        s = _device(self._name(), sync=False).sriov
        if s is None:
            raise FileNotFoundError(f"{self._name()} has no SR-IOV control")
        return s.refresh()

    def discover(self):
        if self._given is not None:
            s, self._given = self._given, None
        else:
            s = self._sriov()
        self._set_attrs({"sriov_numvfs": str(s.num_vfs), "sriov_totalvfs": str(s.total_vfs)})
        return self

    def read_numvfs(self) -> str | None:
        """The current number of VFs, from rdmad now."""
        try:
            return str(self._sriov().num_vfs)
        except FileNotFoundError:
            return None

    def set_numvfs(self, num: str = "1") -> None:
        """Sets the number of VFs (rdmad's SetNumVfs: 0 first, then num), then re-reads."""
        if self.sriov_numvfs and num != self.sriov_numvfs:
            try:
                count = int(str(num).strip())
            except ValueError:
                raise InvalidArgument(f"not a number of VFs: {num!r}") from None
            _c().set_num_vfs(self._name(), count)
            self.sriov_numvfs = self.read_numvfs()
            if self.sriov_numvfs is not None:
                self.sysfs_attrs["sriov_numvfs"] = self.sriov_numvfs

    set_sriov_numvfs = set_numvfs


class RdmaDevice(_SysfsModel):
    """An RDMA device: ``RdmaDevice("mlx5_0")`` or ``RdmaDevice(ibdev="mlx5_0")``.

    ``path`` (``/sys/class/infiniband/mlx5_0``), ``name``, ``ibdev``,
    ``ports_path``, ``device_path`` (the PCI function, resolved),
    ``net_path``, ``ports``, ``port_numbers``, ``is_sriov_capable``,
    ``sysfs_attrs`` and each file of the device directory as an attribute
    (``fw_ver``, ``node_guid``, ...)."""

    RDMA_PATH: ClassVar[Path] = Path(RDMA_SYSFS_BASE)
    _fields = ("path", "name", "ibdev", "ports_path", "device_path", "net_path", "ports", "port_numbers",
               "is_sriov_capable", "sysfs_attrs")

    def __init__(self, ibdev: str | None = None, **kwargs):
        if ibdev is None:
            ibdev = kwargs.pop("ibdev", None)
        if ibdev is None:
            raise TypeError("RdmaDevice() needs ibdev, the device's name ('mlx5_0')")
        self.ibdev = ibdev
        self._dev = None
        self._gen = -1
        self.path = Path(f"{RDMA_SYSFS_BASE}{ibdev}")
        self.name = ibdev
        self.ports_path = self.device_path = self.net_path = None
        self.ports = []
        self.port_numbers = []
        self.is_sriov_capable = False
        self.sysfs_attrs = {}
        self.discover()

    @property
    def _path(self) -> Path:  # sts 1.16.0's name
        return self.path

    def discover(self):
        """Loads the device from rdmad (paths, ports, SR-IOV capability)."""
        d = self._dev = _device(self.ibdev)
        self._gen = _c()._model.generation
        self._set_attrs(d.attributes)
        self.ports_path = self.path / "ports"
        # sts resolves <dev>/device: the PCI function; a virtual device has
        # none, and resolve() then keeps the missing name.
        self.device_path = Path(d.device_path) if d.device_path else Path(d.sysfs_path) / "device"
        self.net_path = self.device_path / "net"
        self.port_numbers = [str(n) for n in sorted(d.port_numbers)]
        self.ports = [self.ports_path / n for n in self.port_numbers]
        self.is_sriov_capable = bool(d.sriov_capable) and d._props.get("Sriov", "/") != "/"
        return self

    def get_netdevs(self) -> list:
        """Every network interface of the device's PCI function, by name."""
        dev = _current(self)
        if not dev.device_path:
            return []
        netdevs = sorted(dev.netdevs, key=lambda n: n.name)
        return [NetDev(self.net_path / n.name, _attrs=n.attributes) for n in netdevs]

    def get_netdev(self, port_id: str):
        """The netdev of port ``port_id`` (1-based): the one whose dev_port is port_id - 1."""
        for dev in self.get_netdevs():
            if dev.dev_port == str(int(port_id) - 1):
                return dev
        return None

    def get_ports(self):
        """Every port, or None when there is none."""
        if not self.ports:
            return None
        ports = _current(self).ports
        by_number = {str(p.number): p for p in ports}
        return [Port(self.ports_path / n, _attrs=by_number[n].attributes)
                for n in self.port_numbers if n in by_number]

    def get_port(self, port: str):
        """Port ``port`` ("1"), or None when there is no such port."""
        if str(port) not in self.port_numbers:
            return None
        try:
            p = _current(self).port(int(port))
        except DeviceNotFound:
            raise
        except NoSuchDevice:
            return None
        return Port(self.ports_path / str(port), _attrs=p.attributes)

    def get_power(self) -> Power:
        """The device's power/ files."""
        return Power(self.path, _attrs=_current(self).power_attributes)

    def get_sriov(self):
        """The SR-IOV control, or None when the device has none."""
        if not self.is_sriov_capable:
            return None
        s = _current(self).sriov
        if s is None:
            return None
        return Sriov(self.device_path, _device_name=self.ibdev)
