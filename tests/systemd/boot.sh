#!/bin/bash
# The first process of a throwaway container (tests/systemd/test-systemd.sh
# starts it under unshare --pid --fork --mount --uts --ipc --net --cgroup):
# it lays out the root and becomes systemd, PID 1 of the new PID namespace.
#   boot.sh DIR LOWER UNIT
# DIR holds upper/ and work/ of the root's overlay (on a tmpfs) and
# console.log; LOWER is the overlay's lower layers (the host's / last);
# UNIT is what systemd boots to. Nothing here reaches the host: the mounts
# are in the new mount namespace, /proc/sys and /sys are read-only, the
# cgroup2 mount is rooted at the container's own cgroup, the network is
# private, and /dev has only the pseudo devices, a devpts of its own and the
# test's /dev/infiniband nodes.
set -eu
dir=$1 lower=$2 unit=$3
root=$dir/root
mount --make-rprivate /
mkdir -p "$dir/work" "$root"
mount -t overlay overlay -o "lowerdir=$lower,upperdir=$dir/upper,workdir=$dir/work" "$root"
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
mount --bind "$root/proc/sys" "$root/proc/sys"
mount -o remount,bind,ro,nosuid,nodev,noexec "$root/proc/sys"
mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$root/sys"
mount -t cgroup2 -o nosuid,nodev,noexec cgroup2 "$root/sys/fs/cgroup"
mount -t tmpfs -o mode=0755,nosuid,size=4m tmpfs "$root/dev"
for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
        IFS=: read -r name major minor <<<"$node"
        mknod -m 0666 "$root/dev/$name" c "$major" "$minor"
done
# rdmad's BindPaths=-/dev/infiniband: a uverbs node (infiniband_verbs, 231),
# as rdma-core's udev rules leave it (0666), and one of another driver
# (10:229, fuse, which anyone may open) that the device policy must refuse.
mkdir -m 0755 "$root/dev/infiniband"
mknod -m 0666 "$root/dev/infiniband/uverbs0" c 231 192
mknod -m 0666 "$root/dev/infiniband/not-uverbs" c 10 229
mkdir "$root/dev/pts" "$root/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$root/dev/pts"
ln -s pts/ptmx "$root/dev/ptmx"
ln -s /proc/self/fd "$root/dev/fd"
touch "$root/dev/console" "$dir/console.log"
mount --bind "$dir/console.log" "$root/dev/console"
cd "$root"
pivot_root . .
umount -l .
# container=: systemd's own convention for "PID 1 in a container"
# (systemd-detect-virt says container-other).
exec env -i container=rdmad-test /lib/systemd/systemd --unit="$unit"
