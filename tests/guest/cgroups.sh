# SPDX-License-Identifier: MIT
# Guest half of the cgroup lifetime test.  A sampled cgroup whose memory
# controller is disabled (its parent's cgroup.subtree_control loses
# "memory") keeps living, but its memcg goes offline and its tasks are
# charged to the parent: its memory columns freeze, records are flagged
# stale, and the kernel log says so once; its other columns go on.
TEST=cgroups
. /guest/tests/lib.sh
S=$KSNAP_SYS
WAIT_S=${WAIT_S:-30}

unload
mkdir -p $CG/mg/child
echo +memory > $CG/mg/cgroup.subtree_control
check "memory on for /mg/child" yes \
	"$([ -e $CG/mg/child/memory.current ] && echo yes || echo no)"
modprobe ksnap metrics=pgfault,memory.current cgroups=/mg/child period_us=1000
check "memory-off: the module samples /mg/child" 0 $?
check "memory-off: start" ok "$(guestprobe write $S/enable 1)"
# The reader ends when the collection is stopped and drained.
guestprobe records 600 > /out/mg.records 2> /out/mg.records.err &
rpid=$!
wait_attached
sh -c "echo \$\$ > $CG/mg/child/cgroup.procs && exec memhog 8 1" >/dev/null 2>&1
wait_for "100 snapshots before the controller goes" $WAIT_S taken_at_least 100
klog_mark
echo -memory > $CG/mg/cgroup.subtree_control
check "memory-off: /mg's subtree_control drops memory" 0 $?
check "memory-off: /mg/child has no memory.current any more" no \
	"$([ -e $CG/mg/child/memory.current ] && echo yes || echo no)"
check_wait "memory-off: the kernel log says the memory controller went" \
	$WAIT_S sh -c "dmesg | grep -q \"'/mg/child': its memory controller was disabled\""
wait_samples 101
memhog 1 0 > /dev/null 2>&1
wait_samples 2
check "memory-off: sampling still runs" running "$(ksnap_stat state)"
check "memory-off: stop" ok "$(guestprobe write $S/enable 0)"
wait_pid $rpid $WAIT_S
check "memory-off: the reader ends after the stop" 0 $?
check "memory-off: the kernel log says it once" 1 \
	"$(klog_since | grep -c "'/mg/child': its memory controller was disabled")"
# Records: "seq time flags pgfault memory.current".
n=$(grep -c '^[0-9]' /out/mg.records)
fresh=$(awk '/^[0-9]/ && int($3 / 2) % 2 == 0' /out/mg.records | wc -l)
stale=$(awk '/^[0-9]/ && int($3 / 2) % 2 == 1' /out/mg.records | wc -l)
info "memory-off: $n records, $fresh fresh, $stale flagged stale"
ge "memory-off: records before the controller went are not stale" "$fresh" 100
ge "memory-off: records after it are flagged KSNAP_REC_STALE" "$stale" 100
check "memory-off: once stale, every later record is stale" ok \
	"$(awk '/^[0-9]/ { s = int($3 / 2) % 2; if (seen && !s) { print "record " $1 " fresh after a stale one"; bad = 1; exit } if (s) seen = 1 } END { if (!bad) print "ok" }' /out/mg.records)"
check "memory-off: memory.current is frozen in the stale records" 1 \
	"$(awk '/^[0-9]/ && int($3 / 2) % 2 == 1 { print $5 }' /out/mg.records | sort -u | wc -l)"
check "memory-off: the other column still moves" yes \
	"$([ "$(awk '/^[0-9]/ && int($3 / 2) % 2 == 1 { print $4 }' /out/mg.records | sort -u | wc -l)" -gt 1 ] && echo yes || echo no)"
unload
rmdir $CG/mg/child $CG/mg 2>/dev/null
finish
