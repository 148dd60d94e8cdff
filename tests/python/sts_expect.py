"""What sts.rdma's code computes from a fixture's files, derived from the
umockdev records themselves (not from rdmad): the device directory's
regular files, read_text().strip(), rate.split(), state.split(':'), the
resolved `device` link, the PCI function's net/ and sriov_* files.

Written from sts-libs' documented behaviour (shared/reference/sts-rdma.txt
and the design contract shared/design.md, "The sts.rdma drop-in", both kept
outside this tree), with the drop-in's documented answers
where sts itself fails (a missing net/ directory, a three-word rate, a
non-UTF-8 file) and where a sysfs file can only be one page.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

PAGE = 4096  # the kernel renders at most one page; rdmad reads one


class Record:
    def __init__(self, path):
        self.path = "/sys" + path
        self.env = []
        self.files = {}   # name (may contain '/') → bytes
        self.links = {}


def parse(fixture: Path) -> list:
    """The records of a umockdev file (P:, E:, A:, H:, L: lines)."""
    records, cur = [], None
    for line in fixture.read_text().splitlines():
        if not line.strip():
            cur = None
            continue
        tag, _, rest = line.partition(": ")
        if tag == "P":
            cur = Record(rest)
            records.append(cur)
        elif tag == "E":
            cur.env.append(rest)
        elif tag in ("A", "H"):
            name, _, value = rest.partition("=")
            cur.files[name] = bytes.fromhex(value) if tag == "H" else _compress(value)
        elif tag == "L":
            name, _, target = rest.partition("=")
            cur.links[name] = target
    return records


def _compress(s: str) -> bytes:
    # g_strcompress(): \n \t \\ \" and octal; any other escape loses its backslash.
    out, i = bytearray(), 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            if n in "01234567":
                j = i + 1
                while j < len(s) and j < i + 4 and s[j] in "01234567":
                    j += 1
                out.append(int(s[i + 1:j], 8))
                i = j
                continue
            out += {"n": b"\n", "t": b"\t", "r": b"\r", "b": b"\b", "f": b"\f", "v": b"\v"}.get(
                n, n.encode())
            i += 2
            continue
        out += c.encode()
        i += 1
    return bytes(out)


def _text(raw: bytes) -> str:
    """read_text().strip() of one file, with the drop-in's decoding (sts
    raises on invalid UTF-8): U+FFFD for each invalid sequence and for NUL."""
    raw = raw[:PAGE]
    text = raw.decode("utf-8", "replace").replace("\0", "\ufffd")
    # read_text() uses universal newlines
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


def _direct_files(rec: Record, subdir: str = "") -> dict:
    """The regular files directly in rec's directory (or subdir of it)."""
    prefix = subdir + "/" if subdir else ""
    names = {}
    dirs = set()
    for name in rec.files:
        if not name.startswith(prefix):
            continue
        rest = name[len(prefix):]
        if "/" in rest:
            dirs.add(rest.split("/", 1)[0])
        else:
            names[rest] = rec.files[name]
    out = {n: _text(v) for n, v in names.items() if n not in dirs}
    if not subdir:
        out["uevent"] = "\n".join(rec.env).strip()
    return out


class Host:
    """Every record of a set of fixtures, by sysfs path."""

    def __init__(self, fixtures):
        self.records = {}
        for f in fixtures:
            for r in parse(f):
                self.records[r.path] = r

    def ib_devices(self) -> dict:
        return {r.path.rsplit("/", 1)[1]: r for r in self.records.values()
                if r.path.rsplit("/", 2)[1] == "infiniband"}

    def expected(self, name: str) -> dict:
        """Everything sts gives for device `name`."""
        dev = self.ib_devices()[name]
        out = {"path": Path(f"/sys/class/infiniband/{name}"), "name": name, "ibdev": name}
        out["sysfs_attrs"] = _direct_files(dev)
        out["ports_path"] = out["path"] / "ports"
        if "device" in dev.links:
            out["device_path"] = Path(posixpath.normpath(posixpath.join(dev.path, dev.links["device"])))
        else:  # resolve() of a missing link keeps its name
            out["device_path"] = Path(dev.path) / "device"
        out["net_path"] = out["device_path"] / "net"
        numbers = sorted({k.split("/")[1] for k in dev.files if k.startswith("ports/")}, key=int)
        out["port_numbers"] = numbers
        out["ports"] = [out["ports_path"] / n for n in numbers]
        pci = self.records.get(str(out["device_path"]))
        out["is_sriov_capable"] = bool(pci and "sriov_numvfs" in pci.files)
        out["_ports"] = {n: self._port(dev, out["ports_path"] / n, n) for n in numbers}
        out["_power"] = {"path": out["path"], "sysfs_attrs": _direct_files(dev, "power")}
        out["_netdevs"] = self._netdevs(str(out["device_path"]))
        if out["is_sriov_capable"]:
            out["_sriov"] = {"path": out["device_path"],
                             "sriov_numvfs": _text(pci.files["sriov_numvfs"]),
                             "sriov_totalvfs": _text(pci.files["sriov_totalvfs"]),
                             "sriov_numvfs_path": out["device_path"] / "sriov_numvfs"}
        return out

    def _port(self, dev, path, number):
        attrs = _direct_files(dev, f"ports/{number}")
        p = {"path": path, "sysfs_attrs": attrs, "name": number}
        for f in ("rate", "state", "phys_state"):
            p[f] = attrs.get(f)
        p.update(rate_speed=None, rate_unit=None, rate_info=None, state_num=None, state_str=None,
                 phys_state_num=None, phys_state_str=None)
        if p["rate"]:
            w = p["rate"].split()
            p["rate_speed"], p["rate_unit"] = w[0], w[1]
            # sts: f'{w[2].strip("(")} {w[3].strip(")")}'; a 3-word rate is the drop-in's "4X"
            p["rate_info"] = f'{w[2].strip("(")} {w[3].strip(")")}' if len(w) >= 4 else w[2].strip("()")
        for f in ("state", "phys_state"):
            if p[f]:
                p[f + "_num"] = p[f].split(":")[0]
                p[f + "_str"] = p[f].split(": ")[1]
        return p

    def _netdevs(self, device_path: str) -> list:
        out = []
        for path, r in sorted(self.records.items()):
            if os.path.dirname(path) == device_path + "/net":
                attrs = _direct_files(r)
                out.append({"path": Path(path), "sysfs_attrs": attrs, "dev_port": attrs.get("dev_port")})
        return out
