#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# PID 1 of the pure cgroup v2 VM (run.sh boots it; the image's stub
# /usr/sbin/qd-vm-init execs this from the checkout, mounted read-only at
# /qosdeny; /out is the host's results directory). Sets the node up as a
# Debian 13 GPU node would be: cgroup2 alone at /sys/fs/cgroup with its
# controllers enabled, a network address, munge, Redis, two fake GPUs. Then
# runs each test of qd_tests (from the kernel command line) as its own
# process, Slurm stopped between them, and powers off.
#
# A test named t_NAME@jobidpaths runs with CgroupJobIdPaths=yes in
# cgroup.conf (QD_VM_JOBID_PATHS, slurm.sh; Slurm 26.05), counted as
# "vm-v2-jobidpaths t_NAME". qd_slurm is the Slurm version of the image.
#
# Results: /out/counts ("vm-v2 t_NAME passed failed", lib.sh's finish),
# /out/log (every test's output), /out/t_NAME/ (Slurm's logs of the test),
# /out/done once all have run.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
VM=/qosdeny/tests/vm
log() { echo "vm: $*" | tee -a /out/log; }
# The kernel powers off; should it not, PID 1's exit panics it and panic=1
# reboots, which qemu's -no-reboot turns into its exit.
poweroff_now() {
	echo 1 >/proc/sys/kernel/sysrq
	echo o >/proc/sysrq-trigger
	sleep 5
	exit 0
}

# busy_cs: the time both vCPUs spent busy since boot, in hundredths of a
# second (/proc/stat: user, nice, system, irq, softirq): what a test cost,
# as qemu's TCG spends host CPU on little else.
busy_cs() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

# All in one function, which bash reads whole before running it: an edit of
# this file in the checkout during a run cannot change what the VM runs.
main() {
	mountpoint -q /dev || mount -t devtmpfs dev /dev
	mkdir -p /dev/pts /dev/shm
	mount -t devpts devpts /dev/pts
	mount -t tmpfs tmpfs /dev/shm
	mount -t tmpfs tmpfs /run
	mount -t tmpfs tmpfs /tmp
	# The layout of a pure cgroup v2 host (systemd's unified mode): cgroup2
	# alone, every controller enabled for the children of the root.
	mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup
	for c in cpuset cpu io memory pids; do
		echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control
	done
	log "cgroup2 controllers: $(cat /sys/fs/cgroup/cgroup.subtree_control)"

	# Slurm needs an address other than loopback (with only lo, glibc's name
	# lookups fail and slurmd hangs): a dummy interface carries the node's.
	hostname vm
	ip link set lo up
	ip link add dummy0 type dummy
	ip addr add 10.99.0.1/24 dev dummy0
	ip link set dummy0 up
	printf '127.0.0.1 localhost\n10.99.0.1 vm\n' >/etc/hosts

	# Two fake GPUs: no driver behind the major, so an allowed open() fails
	# with ENXIO and a denied one with EPERM (the device program).
	for i in 0 1; do mknod -m 666 /dev/nvidia$i c 195 $i; done
	mknod -m 666 /dev/nvidiactl c 195 255

	mkdir -p /run/munge /var/log/munge /var/lib/munge
	chown munge: /run/munge /var/log/munge /var/lib/munge
	[ -s /etc/munge/munge.key ] || {
		dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
		chown munge: /etc/munge/munge.key
		chmod 400 /etc/munge/munge.key
	}
	runuser -u munge -- /usr/sbin/munged
	redis-server --bind 127.0.0.1 --port 6379 --save '' --appendonly no \
		--daemonize yes --dir /tmp --logfile /tmp/redis.log

	IFS=, read -r -a tests <<<"${qd_tests:-}"
	log "kernel $(uname -r), $(nproc) CPUs; $(slurmctld -V 2>&1); tests: ${tests[*]}; plugin: ${qd_plugin:-}"
	touch /out/counts
	for entry in "${tests[@]}"; do
		t=${entry%@*}
		suite=vm-v2 idpaths=""
		if [ "$entry" != "$t" ]; then
			suite=vm-v2-${entry##*@}
			[ "${entry##*@}" = jobidpaths ] && idpaths=yes
		fi
		before=$(wc -l </out/counts)
		start=$(date +%s)
		busy0=$(busy_cs)
		log "--- $entry"
		# A name with a / is a path in the checkout (run.sh).
		file=$VM/$t.sh
		[[ $t == */* ]] && file=/qosdeny/$t.sh
		QD_RESULTS=/out QD_SUITE=$suite QD_VM_PLUGIN=/qosdeny/$qd_plugin \
			QD_VM_SLURM=${qd_slurm:-24.11} QD_VM_JOBID_PATHS=$idpaths \
			timeout -k 10 900 bash "$file" </dev/null 2>&1 | tee -a /out/log
		# A test that died before its finish still counts, as one failure.
		[ "$(wc -l </out/counts)" -gt "$before" ] ||
			echo "$suite $(basename "$t") 0 1" >>/out/counts
		bash "$VM/slurm.sh" stop >/dev/null 2>&1
		# Slurm's logs of the test, for its failures.
		mkdir -p "/out/$entry"
		cp /var/lib/qd/log/*.log "/out/$entry/" 2>/dev/null
		rm -f /var/lib/qd/log/*.log
		log "$entry took $(($(date +%s) - start)) s, $((($(busy_cs) - busy0) / 100)) s of the guest's CPU"
	done
	touch /out/done
	log "all tests ran, $(cut -d' ' -f1 /proc/uptime) s after boot"
}
trap poweroff_now EXIT
main
