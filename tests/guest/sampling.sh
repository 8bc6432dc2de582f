# Guest half of the sampling test (tests/run-guest-tests checks the stream on
# the host with tests/guest/check-stream).  Loads ksnap on a test cgroup,
# records a few seconds with ksnapd while a process in that cgroup makes
# MIB MiB resident, stops, and leaves in /out:
#   stream.tsv       what ksnapd wrote
#   sampling.env     the parameters the checker needs
#   sysfs-stats.txt  /sys/kernel/ksnap/stats after the stop
TEST=sampling
. /guest/tests/lib.sh

METRICS=pgfault,pgmajfault,nr_free_pages,memory.current
CGROUP=/ksnaptest
PERIOD_US=1000
MIB=32

cat > /out/sampling.env <<ENV
metrics=$METRICS
cgroups=$CGROUP
period_us=$PERIOD_US
alloc_mib=$MIB
ENV

mkdir -p "$CG$CGROUP"
if ! modprobe ksnap metrics=$METRICS cgroups=$CGROUP period_us=$PERIOD_US; then
	fail "module loads with metrics=$METRICS cgroups=$CGROUP period_us=$PERIOD_US" "modprobe status 0" "failure"
	dmesg | tail -n 5
	finish
	exit
fi
pass "module loads with metrics=$METRICS cgroups=$CGROUP period_us=$PERIOD_US"

e=$(guestprobe write $KSNAP_SYS/enable 1)
check "writing 1 to enable starts sampling" ok "$e"
ksnapd --once -o /out/stream.tsv &
kpid=$!
sleep 1
# The hog joins the test cgroup before it allocates: its pages are charged
# there.
sh -c "echo \$\$ > $CG$CGROUP/cgroup.procs && exec memhog $MIB 2"
check "the allocating process ran in $CGROUP" 0 $?
sleep 1
e=$(guestprobe write $KSNAP_SYS/enable 0)
check "writing 0 to enable stops sampling" ok "$e"
wait_pid $kpid 60
check "ksnapd -o exits 0 once sampling stopped and the ring is drained" 0 $?
cat $KSNAP_SYS/stats > /out/sysfs-stats.txt 2>&1
info "sysfs stats after stop: $(tr '\n' ' ' < /out/sysfs-stats.txt)"
rmmod ksnap
check "rmmod after the collection" 0 $?
module_loaded && fail "module is gone after rmmod" "not in /proc/modules" "still loaded"
rmdir "$CG$CGROUP"
finish
