# SPDX-License-Identifier: MIT
# Guest half of the sampling test (tests/run-guest-tests checks the stream on
# the host with tests/guest/check-stream).  Loads ksnap on two test cgroups,
# /a and /b, in one collection, records with ksnapd while one process in
# each makes its own amount of memory resident (MIB_A MiB in /a, MIB_B MiB
# in /b, both held at the same time, each until snapshots were taken while
# it held it), stops, and leaves in /out:
#   stream.tsv       what ksnapd wrote
#   sampling.env     the parameters the checker needs (alloc_mib lists the
#                    sizes in the order of cgroups)
#   sysfs-stats.txt  the module's stats/ after the stop (KEY VALUE lines)
# check-stream then wants the columns memory.current[/a] and
# memory.current[/b], each rising by its own process's memory and not by
# the other's (the sizes differ by more than the checker's slack).
TEST=sampling
. /guest/tests/lib.sh

METRICS=pgfault,pgmajfault,nr_free_pages,memory.current
CGROUP_A=/a
CGROUP_B=/b
CGROUPS=$CGROUP_A,$CGROUP_B
PERIOD_US=1000
MIB_A=32
MIB_B=12

cat > /out/sampling.env <<ENV
metrics=$METRICS
cgroups=$CGROUPS
period_us=$PERIOD_US
alloc_mib=$MIB_A,$MIB_B
ENV

mkdir -p "$CG$CGROUP_A" "$CG$CGROUP_B"
if ! modprobe ksnap metrics=$METRICS cgroups=$CGROUPS period_us=$PERIOD_US; then
	fail "module loads with metrics=$METRICS cgroups=$CGROUPS period_us=$PERIOD_US" "modprobe status 0" "failure"
	dmesg | tail -n 5
	finish
	exit
fi
pass "module loads with metrics=$METRICS cgroups=$CGROUPS period_us=$PERIOD_US"

e=$(guestprobe write $KSNAP_SYS/enable 1)
check "writing 1 to enable starts sampling" ok "$e"
ksnapd --once -o /out/stream.tsv &
kpid=$!
# The first rows, taken before any hog runs, are the columns' base line.
wait_attached
wait_samples 2
# Each hog joins its cgroup before it allocates: its pages are charged
# there, and it holds them until it is told to go, once snapshots were
# taken while it held them (however long that takes on a busy host).
# /b's hog starts once /a's holds all its memory, and ends while /a's
# still holds it: both are resident at once (a column that read the sum
# would show it), but only one faults pages in at a time.
sh -c "echo \$\$ > $CG$CGROUP_A/cgroup.procs && exec memhog $MIB_A -" > /tmp/hog-a.out 2>&1 &
hog_a=$!
wait_line /tmp/hog-a.out resident
wait_samples 2
sh -c "echo \$\$ > $CG$CGROUP_B/cgroup.procs && exec memhog $MIB_B -" > /tmp/hog-b.out 2>&1 &
hog_b=$!
wait_line /tmp/hog-b.out resident
wait_samples 2
kill -TERM $hog_b
wait_pid $hog_b $WAIT_S
check "the process allocating $MIB_B MiB ran in $CGROUP_B" 0 $?
a_alive=$(alive $hog_a && echo yes || echo no)
kill -TERM $hog_a
wait_pid $hog_a $WAIT_S
check "the process allocating $MIB_A MiB ran in $CGROUP_A" 0 $?
check "both processes held their memory at the same time ($CGROUP_A's still alive when $CGROUP_B's ended)" yes "$a_alive"
cat /tmp/hog-a.out /tmp/hog-b.out
# Rows after the hogs, with their memory gone again; and a collection of
# a few thousand periods at least, for check-stream's timing identity.
wait_samples 2
wait_for "the collection has taken 3000 snapshots" $WAIT_S taken_at_least 3000
e=$(guestprobe write $KSNAP_SYS/enable 0)
check "writing 0 to enable stops sampling" ok "$e"
wait_pid $kpid $WAIT_S
check "ksnapd -o exits 0 once sampling stopped and the ring is drained" 0 $?
ksnap_dump stats > /out/sysfs-stats.txt 2>&1
info "sysfs stats after stop: $(tr '\n' ' ' < /out/sysfs-stats.txt)"
rmmod ksnap
check "rmmod after the collection" 0 $?
module_loaded && fail "module is gone after rmmod" "not in /proc/modules" "still loaded"
rmdir "$CG$CGROUP_A" "$CG$CGROUP_B"
finish
