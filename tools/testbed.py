#!/usr/bin/python3
"""Holds a umockdev testbed for the demo and changes it on request.

Run under umockdev's preload (umockdev-wrapper): umockdev's uevent sender
finds devices through it. Prints the testbed root (for UMOCKDEV_DIR), then
reads commands, one a line, and answers each with "ok" or "error: ...":
  add RECORD_FILE              add the devices of a umockdev record (sends "add")
  uevent DEVPATH ACTION        send a uevent for /sys/devices/...
  remove DEVPATH               send "remove", then delete the device
  write DEVPATH NAME VALUE     rewrite a sysfs attribute in place (VALUE may contain \\n)
With --keep (first argument), the end of the commands does not end the
helper: it keeps the testbed until SIGTERM or SIGINT (KEEP=1 tools/demo).
Either signal removes the testbed directory on the way out.
"""
import signal
import sys

import gi

gi.require_version("UMockdev", "1.0")
from gi.repository import UMockdev  # noqa: E402


def leave(signum, frame):
    # An exception, so that the testbed is finalized (its directory removed).
    raise SystemExit(0)


def main():
    args = sys.argv[1:]
    keep = args[:1] == ["--keep"]
    if keep:
        args = args[1:]
    signal.signal(signal.SIGTERM, leave)
    signal.signal(signal.SIGINT, leave)
    testbed = UMockdev.Testbed.new()
    for fixture in args:
        testbed.add_from_file(fixture)
    print(testbed.get_root_dir(), flush=True)

    for line in sys.stdin:
        words = line.rstrip("\n").split(" ", 3)
        try:
            if words[0] == "add":
                with open(words[1]) as f:
                    testbed.add_from_string(f.read())
            elif words[0] == "uevent":
                testbed.uevent(words[1], words[2])
            elif words[0] == "remove":
                testbed.uevent(words[1], "remove")
                testbed.remove_device(words[1])
            elif words[0] == "write":
                # In place, as the kernel changes a sysfs file (set_attribute
                # would replace the file, unseen through an open descriptor).
                with open(testbed.get_root_dir() + words[1] + "/" + words[2], "w") as f:
                    f.write(words[3].replace("\\n", "\n"))
            else:
                raise ValueError("unknown command " + words[0])
            print("ok", flush=True)
        except Exception as e:  # report and go on: the demo decides
            print("error: %s" % e, flush=True)

    if keep:
        while True:
            signal.pause()


if __name__ == "__main__":
    main()
