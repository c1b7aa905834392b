#!/bin/busybox sh
# /init of the kernel matrix's initramfs: load the modules, mount the host's
# root read-only over 9p with writable tmpfs and overlays where a system
# writes, the read-write results share, then run the script named on the
# kernel command line (cowtop.run=PATH, a path in the host's tree) chrooted,
# its output to the results share and the console, and power off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
while read -r m; do insmod "/mod/$m" || echo "init: cannot load $m"; done </mod/order
run=
for w in $(cat /proc/cmdline); do
	case $w in cowtop.run=*) run=${w#cowtop.run=} ;; esac
done
o=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o "$o,ro,cache=loose" root /newroot || { echo "init: no root share"; poweroff -f; }
n=/newroot
mount -t proc proc $n/proc
mount -t sysfs sys $n/sys
mount -t devtmpfs dev $n/dev
mkdir -p $n/dev/pts $n/dev/shm
mount -t devpts devpts $n/dev/pts
ln -s /proc/self/fd $n/dev/fd
ln -s /proc/self/fd/0 $n/dev/stdin
ln -s /proc/self/fd/1 $n/dev/stdout
ln -s /proc/self/fd/2 $n/dev/stderr
mount -t tmpfs tmpfs $n/dev/shm
mount -t tmpfs tmpfs $n/run
# /var and /tmp: the host's as they were at boot, writable on top (a build
# the matrix tests may live under the host's /tmp: it must stay visible)
mkdir -p /ovl && mount -t tmpfs tmpfs /ovl
for d in var tmp; do
	mkdir -p /ovl/$d/u /ovl/$d/w
	mount -t overlay overlay -o lowerdir=$n/$d,upperdir=/ovl/$d/u,workdir=/ovl/$d/w $n/$d
done
mount -t tracefs tracefs $n/sys/kernel/tracing 2>/dev/null
mount -t bpf bpf $n/sys/fs/bpf 2>/dev/null
mount -t cgroup2 cgroup2 $n/sys/fs/cgroup 2>/dev/null
mkdir -p $n/tmp/results
mount -t 9p -o "$o" results $n/tmp/results || echo "init: no results share"
ip link set lo up 2>/dev/null
echo "init: running $run"
chroot $n /bin/sh -c "cd /tmp && $run" 2>&1 | tee $n/tmp/results/guest.log
echo "init: done"
sync
poweroff -f
