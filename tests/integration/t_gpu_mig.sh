#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# MIG slices (gres.conf MultipleFiles=) are bound as Slurm binds them: a
# step may open the files of its GPUs, a slice's being its parent GPU's
# device file and its own nvidia-caps files, and no other GPU file of the
# node. n1 becomes a MIG node: GPU 0 whole (nvidia0), GPUs 1 and 2 two
# slices of nvidia1, GPU 3 whole (nvidia2); nvidia3 is then no GPU of the
# node and is left alone. The caps files are made on a character major no
# driver claims here, so an allowed open gives ENXIO, as for the fake GPUs.
# Slurm's own task/cgroup ConstrainDevices=yes is the oracle: every shape
# of job gives the same files under it alone, under qosdeny alone and
# under both.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/gpu-lib.sh"
MIG_PROBE="$QD_ROOT/tests/integration/mig-probe.sh $QD_DEV_DIR"
QD=$QD_BUILD/qosdeny
CAPS=$QD_DEV_DIR/nvidia-caps
GRES=$QD_SLURM_ETC/gres.conf

# A character major no driver has: /proc/devices lists those in use.
free_major() {
	local m
	for m in $(seq 254 -1 234); do
		awk -v m="$m" '/^Character/ { c = 1; next } /^Block/ { c = 0 }
			c && $1 == m { found = 1 } END { exit !found }' /proc/devices ||
			{
				echo "$m"
				return
			}
	done
	return 1
}

# The files of each GPU index on the MIG node, as gres.conf below says.
declare -A FILES=([0]="nvidia0" [1]="nvidia1 cap12 cap13"
	[2]="nvidia1 cap21 cap22" [3]="nvidia2")

# mig_expected INDICES: the probe's line for a step holding those GPUs.
mig_expected() {
	local allowed=" " i f out="gpus=$1"
	for i in ${1//,/ }; do allowed+="${FILES[$i]} "; done
	for f in nvidia0 nvidia1 nvidia2 nvidia3 cap12 cap13 cap21 cap22; do
		if [ "$f" = nvidia3 ] || [[ $allowed == *" $f "* ]]; then
			out+=" $f=ENXIO"
		else
			out+=" $f=EPERM"
		fi
	done
	echo "$out"
}

# check_mig WHAT [WANT_GPUS]: the probe's one line in OUT is what its GPUs
# allow; with WANT_GPUS, that Slurm gave the step those.
check_mig() {
	local l
	l=$(printf '%s\n' "$OUT" | grep '^gpus=' | head -n 1)
	[ -z "${2+x}" ] || assert_eq "$1: Slurm gave GPUs $2" "gpus=$2" "${l%% *}"
	assert_eq "$1" "$(mig_expected "$(sed 's/^gpus=\([^ ]*\).*/\1/' <<<"$l")")" "$l"
}

# shapes HOW: each shape of job on n1, checked against the layout.
shapes() {
	local hold
	as alice srun -w n1 $MIG_PROBE
	check_mig "$1, a step without GPUs" ""
	as alice srun -w n1 --gres=gpu:3 $MIG_PROBE
	check_mig "$1, --gres=gpu:3: a whole GPU and both slices" "0,1,2"
	# The GPUs before a slice held by a job of their own: the next step
	# gets the slice alone.
	hold=$(submit_running alice -w n1 --gres=gpu:1)
	as alice srun -w n1 --gres=gpu:1 $MIG_PROBE
	check_mig "$1, slice 1 alone: nvidia1 and its own caps files" "1"
	scancel "$hold"
	wait_for "job $hold to end" 60 job_done "$hold"
	hold=$(submit_running alice -w n1 --gres=gpu:2)
	as alice srun -w n1 --gres=gpu:1 $MIG_PROBE
	check_mig "$1, slice 2 alone: nvidia1 shared, slice 1's caps denied" "2"
	scancel "$hold"
	wait_for "job $hold to end" 60 job_done "$hold"
	OUT=$(batch_of "$MIG_PROBE" -w n1 --gres=gpu:2)
	check_mig "$1, batch step, --gres=gpu:2" "0,1"
}

major=$(free_major)
check "a character major no driver claims here ($major)" test -n "$major"
mkdir -p "$CAPS"
for m in 12 13 21 22; do
	mknod -m 666 "$CAPS/nvidia-cap$m" c "$major" "$m"
done
cp "$GRES" "$GRES.orig"
cat >"$GRES" <<EOF
AutoDetect=off
NodeName=n1 Name=gpu Type=a100 File=$QD_DEV_DIR/nvidia0
NodeName=n1 Name=gpu Type=a100 MultipleFiles=$QD_DEV_DIR/nvidia1,$CAPS/nvidia-cap[12-13]
NodeName=n1 Name=gpu Type=a100 MultipleFiles=$QD_DEV_DIR/nvidia1,$CAPS/nvidia-cap21,$CAPS/nvidia-cap22
NodeName=n1 Name=gpu Type=a100 File=$QD_DEV_DIR/nvidia2
NodeName=n2 Name=gpu Type=v100 File=$QD_DEV_DIR/nvidia[4-7]
EOF

task_cgroup_on "n1 is a MIG node, beside task/cgroup with ConstrainDevices=yes"
against_slurm shapes
task_cgroup_off "the MIG node on task/none"
as alice srun -w n1 --gres=gpu:1 $MIG_PROBE
assert_contains "without qosdeny, task/none confines nothing" \
	"nvidia2=ENXIO nvidia3=ENXIO cap12=ENXIO cap13=ENXIO cap21=ENXIO cap22=ENXIO" "$OUT"
echo "required spank_qosdeny.so" >"$PLUGSTACK"
shapes "qosdeny alone"
echo "required spank_qosdeny.so cgroup=v2" >"$PLUGSTACK"
hold=$(submit_running alice -w n1 --gres=gpu:2)
as alice srun -w n1 --gres=gpu:1 $MIG_PROBE
check_mig "qosdeny alone, cgroup v2 device program, slice 2 alone" "2"
scancel "$hold"
wait_for "job $hold to end" 60 job_done "$hold"

# doctor shows each slice's files, and a slice whose caps file is gone.
echo "required spank_qosdeny.so" >"$PLUGSTACK"
DOUT=$("$QD" doctor -P --node=n1 2>&1)
assert_contains "doctor: the slices' files, as slurmd -G has them" \
	"ok|gpus|4 GPUs from $GRES ($QD_DEV_DIR/nvidia0,$QD_DEV_DIR/nvidia1+$CAPS/nvidia-cap12+$CAPS/nvidia-cap13,$QD_DEV_DIR/nvidia1+$CAPS/nvidia-cap21+$CAPS/nvidia-cap22,$QD_DEV_DIR/nvidia2), as slurmd -G" \
	"$DOUT"
rm -f "$CAPS/nvidia-cap22"
DOUT=$("$QD" doctor -P --node=n1 2>&1)
assert_contains "doctor: a slice's missing caps file fails the gpus check" \
	"FAIL|gpus|" "$DOUT"
assert_contains "doctor: it names the GPU and the file" \
	"GPU 2: $CAPS/nvidia-cap22: No such file or directory" "$DOUT"
# Fail closed: a GPU file that cannot be denied stops every step of the
# node, not only the slice's (an srun step: a batch step that cannot start
# drains the node, as slurmd does for any), and the user is told why.
as alice srun -w n1 --gres=gpu:1 $MIG_PROBE
assert_not_contains "a step on the node whose caps file is gone does not run" \
	"gpus=" "$OUT"
assert_contains "its user sees a qosdeny: line naming the file" \
	"nvidia-cap22: No such file or directory" "$OUT"

: >"$PLUGSTACK"
mv -f "$GRES.orig" "$GRES"
rm -rf "$CAPS"
check "n1 has its four whole GPUs again" reconfigure_nodes
remove_slurm_cgroups
finish
