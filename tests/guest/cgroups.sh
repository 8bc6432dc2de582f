# SPDX-License-Identifier: MIT
# Guest half of the cgroup lifetime test.  A sampled cgroup whose memory
# controller is disabled (its parent's cgroup.subtree_control loses
# "memory") keeps living, but its memcg goes offline and its tasks are
# charged to the parent: its memory columns freeze, records are flagged
# stale, and the kernel log says so once; its other columns go on.
# Enabled again, the cgroup has a new memcg, which ksnap follows: named by
# path, from the next start (fresh records, the new memcg's values); matched
# by a pattern, from the next rescan (a set change, the new values).
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

# mem_at_least DIR BYTES: DIR's memory.current is at least BYTES.
mem_at_least() {
	_m=$(cat "$1/memory.current" 2>/dev/null)
	echo "memory.current ${_m:-none}"
	[ "${_m:-0}" -ge "$2" ]
}
# dying_memcgs: the memcgs offline but not yet freed under /mg, where the
# kernel counts them (6.11 on); "unknown" elsewhere.
dying_memcgs() {
	sed -n 's/^nr_dying_subsys_memory //p' $CG/mg/cgroup.stat 2>/dev/null | grep . || echo unknown
}
MIB16=16777216

# --- memory on again, the cgroup named by path ---------------------------------
echo +memory > $CG/mg/cgroup.subtree_control
check "memory-on: /mg/child has memory.current again" yes \
	"$([ -e $CG/mg/child/memory.current ] && echo yes || echo no)"
sh -c "echo \$\$ > $CG/mg/child/cgroup.procs && exec memhog 24 600" >/dev/null 2>&1 &
hog=$!
check_wait "memory-on: 24 MiB charged to the new memcg" $WAIT_S mem_at_least $CG/mg/child $MIB16
info "memory-on: dying memcgs under /mg before the start (the old one, held): $(dying_memcgs)"
check "memory-on (path): start" ok "$(guestprobe write $S/enable 1)"
guestprobe records 600 > /out/mg-on.records 2> /out/mg-on.records.err &
rpid=$!
wait_attached
wait_for "100 snapshots" $WAIT_S taken_at_least 100
check "memory-on (path): stop" ok "$(guestprobe write $S/enable 0)"
wait_pid $rpid $WAIT_S
check "memory-on (path): the reader ends after the stop" 0 $?
n=$(grep -c '^[0-9]' /out/mg-on.records)
stale=$(awk '/^[0-9]/ && int($3 / 2) % 2 == 1' /out/mg-on.records | wc -l)
low=$(awk -v m=$MIB16 '/^[0-9]/ && $5 < m' /out/mg-on.records | wc -l)
info "memory-on (path): $n records, $stale flagged stale, $low below 16 MiB; memory.current now $(cat $CG/mg/child/memory.current)"
ge "memory-on (path): records" "$n" 100
check "memory-on (path): no record flagged stale (the new memcg is read)" 0 "$stale"
check "memory-on (path): memory.current is the new memcg's (24 MiB, not the old frozen value)" 0 "$low"
# The old memcg is not kept: where the kernel counts dying memcgs (6.11
# on), /mg's count comes back to 0 (page cache dropped: charged pages
# keep a memcg dying with or without ksnap).
if [ "$(dying_memcgs)" = unknown ]; then
	info "memory-on: this kernel does not count dying memcgs (cgroup.stat nr_dying_subsys_memory)"
else
	echo 3 > /proc/sys/vm/drop_caches
	check_wait "memory-on: the old memcg is let go (/mg's nr_dying_subsys_memory 0)" $WAIT_S \
		sh -c '[ "$(sed -n "s/^nr_dying_subsys_memory //p" '$CG'/mg/cgroup.stat)" = 0 ] || { grep nr_dying_subsys_memory '$CG'/mg/cgroup.stat; exit 1; }'
fi
kill $hog 2>/dev/null
wait $hog 2>/dev/null
unload

# --- off and on again between two rescans, the cgroup matched by a pattern -------
# No periodic rescan (discover_ms) in between: the next one is the event of
# a mkdir under /mg, after the controller is back.
modprobe ksnap metrics=pgfault,memory.current 'cgroups=/mg/*' period_us=1000 discover_ms=60000
check "pattern: the module follows /mg/*" 0 $?
ksnapd -o /out/mgp.tsv 2> /out/mgp.err &
kpid=$!
wait_attached
check "pattern: start" ok "$(guestprobe write $S/enable 1)"
wait_for "100 snapshots" $WAIT_S taken_at_least 100
klog_mark
echo -memory > $CG/mg/cgroup.subtree_control
check_wait "pattern: the kernel log says the memory controller went" $WAIT_S \
	sh -c "dmesg | grep -q \"'/mg/child': its memory controller was disabled\""
echo +memory > $CG/mg/cgroup.subtree_control
sh -c "echo \$\$ > $CG/mg/child/cgroup.procs && exec memhog 24 600" >/dev/null 2>&1 &
hog=$!
check_wait "pattern: 24 MiB charged to the new memcg" $WAIT_S mem_at_least $CG/mg/child $MIB16
check "pattern: no set change yet" 0 "$(ksnap_stat set_changes)"
mkdir $CG/mg/child/sub
check_wait "pattern: the rescan a mkdir starts swaps the new memcg in (a set change)" $WAIT_S \
	stat_is set_changes 1
# The set change begins a new file (ksnapd(8)): the second.
last=/out/mgp.tsv.2
wait_rows "$last" 50
col=$(grep -m 1 '^Time (ns)' "$last" | tr '\t' '\n' | grep -n -x 'memory.current\[/mg/child\]' | cut -d: -f1)
v=$(grep '^[0-9]' "$last" | tail -n 1 | cut -f "${col:-2}")
info "pattern: $last: memory.current[/mg/child] is column ${col:-none}, last row $v"
check "pattern: after the set change memory.current is the new memcg's (at least 16 MiB)" 1 \
	"$([ -n "$col" ] && [ "${v:-0}" -ge $MIB16 ] && echo 1 || echo 0)"
check "pattern: stop" ok "$(guestprobe write $S/enable 0)"
kill -TERM $kpid 2>/dev/null
wait_pid $kpid $WAIT_S
kill $hog 2>/dev/null
wait $hog 2>/dev/null
rmdir $CG/mg/child/sub
unload
rmdir $CG/mg/child $CG/mg 2>/dev/null
finish
