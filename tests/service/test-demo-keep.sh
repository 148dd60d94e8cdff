#!/bin/bash
# KEEP=1 tools/demo leaves a whole demo behind: seconds after the script has
# exited the testbed is still there, rdmactl sees every port with its state
# and `wait` answers; the printed stop command ends exactly the recorded
# processes and removes the state directory and the testbed.
set -euo pipefail
build=$1
src=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
out=$(mktemp /tmp/rdmad-demo-keep-XXXXXX)
state=""
stop_command=""
finish() {
        [ -z "$stop_command" ] || $stop_command >/dev/null 2>&1 || true
        rm -f "$out"
}
trap finish EXIT

KEEP=1 "$src/tools/demo" "$build" </dev/null >"$out" 2>&1 || { cat "$out" >&2; fail "KEEP=1 tools/demo failed"; }
stop_command=$(grep -A1 '^Stop it' "$out" | tail -n1 | sed 's/^ *//')
[ -n "$stop_command" ] || { cat "$out" >&2; fail "no stop command printed"; }
state=${stop_command##* }
[[ $stop_command == "$src/tools/demo --stop /tmp/rdmad-demo-"* ]] || fail "stop command: $stop_command"
testbed=$(sed -n 's|^The simulated sysfs is under \(.*\)/sys: .*|\1|p' "$out")
[ -n "$testbed" ] || fail "no testbed printed"
address=$(sed -n 's/^ *export DBUS_SYSTEM_BUS_ADDRESS=//p' "$out")

# The script is gone; what it kept must not go with it.
sleep 3
[ -d "$testbed/sys/devices" ] || fail "the testbed $testbed is gone"
[ -f "$state/pids" ] || fail "no $state/pids"
names=$(awk '{ print $2 }' "$state/pids" | sort | tr '\n' ' ')
# The bus: dbus-daemon, or dbus-broker's launcher (its comm cut to 15
# characters) and, without journald, the demo's journal stand-in.
case ${RDMAD_TEST_BUS:-dbus-daemon} in
dbus-broker)
        expected="dbus-broker-lau rdmad testbed.py "
        [ -S /run/systemd/journal/socket ] || expected="dbus-broker-lau python3 rdmad testbed.py " ;;
*) expected="dbus-daemon rdmad testbed.py " ;;
esac
[ "$names" = "$expected" ] || fail "recorded processes: $names (expected $expected)"
while read -r pid name; do
        [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ] || fail "$name ($pid) is not running"
        # A session of its own: the terminal's Ctrl+C and hang-up do not reach it.
        [ "$(ps -o sid= -p "$pid" | tr -d ' ')" = "$pid" ] || fail "$name ($pid) is not a session leader"
done < "$state/pids"

rdmactl=$build/rdmactl/rdmactl
list=$(DBUS_SYSTEM_BUS_ADDRESS=$address "$rdmactl" list --no-legend --no-pager)
echo "$list"
ports=$(echo "$list" | grep -c .)
[ "$ports" = 7 ] || fail "$ports ports listed, expected 7"
# STATE and PHYS STATE: a name on every line, never "-".
echo "$list" | awk '$3 == "-" || $4 == "-" { bad = 1 } END { exit bad }' || fail "a port without a state"
DBUS_SYSTEM_BUS_ADDRESS=$address "$rdmactl" wait mlx5_0 1 ACTIVE --timeout=1 || fail "rdmactl wait"
echo "kept demo whole after the script's exit: ok"

pids=$(awk '{ print $1 }' "$state/pids")
$stop_command || fail "the stop command failed"
stop_command=""
for pid in $pids; do
        [ ! -d "/proc/$pid" ] || fail "process $pid still runs after the stop command"
done
[ ! -e "$state" ] || fail "$state is left"
[ ! -e "$testbed" ] || fail "$testbed is left"
echo "the stop command ended $(echo $pids | wc -w) processes and removed both directories: ok"
echo "1 passed, 0 failed"
