# SPDX-License-Identifier: MIT
# Guest half of the test of set changes paced by the reader.  The module
# names the last 4 sets swapped out (KSNAP_IOC_COLUMN); a reader more
# sets behind than that met ESTALE and skipped their records, though the
# ring still held every one.  A rescan whose set change would drop the
# names of a set the reader has not met yet now waits for it, while the
# reader has lost nothing (stats/set_change_waits).
#
# ksnapd writes a collection of /kspace/c* at 10 Hz (the ring, at the
# defaults, holds 12.8 s of it), then is stopped (SIGSTOP).  Cgroups are
# made one at a time, each waited for as a set change or as a wait, at
# most MAX_SETS.  Asserted:
#  - a rescan waited (stats/set_change_waits above 0) before MAX_SETS set
#    changes: a module without the wait made 8 with the reader stopped;
#  - once ksnapd runs again, the set holds every cgroup made;
#  - ksnapd met no set it could not name (its log, and no snapshot
#    skipped in any stream's STATS), and no record was lost; every
#    stream verifies.  (A set may have no record, and so no stream: two
#    set changes can fall within one period.)
# Without the wait: 'expected 'yes', got 'no (waits 0, set changes 8)'',
# two sets ksnapd could not name and 3 snapshots skipped.
TEST=pace
. /guest/tests/lib.sh
S=$KSNAP_SYS
WAIT_S=${WAIT_S:-60}
MAX_SETS=${MAX_SETS:-8}
D=/kspace
OUT=/tmp/pace
mkdir -p $OUT $CG$D
echo "+memory" > $CG$D/cgroup.subtree_control
mkdir $CG$D/c0

modprobe ksnap metrics=pgfault,memory.current "cgroups=$D/c*" \
	period_us=100000 discover_ms=100 settle_ms=1
check "load: a pattern, 10 Hz" 0 $?
ksnapd --once -o $OUT/p.tsv 2> /out/ksnapd.err &
kpid=$!
wait_attached
check "start" ok "$(guestprobe write $S/enable 1)"
wait_rows $OUT/p.tsv 2
kill -STOP $kpid
wait_for "ksnapd is stopped" $WAIT_S proc_state $kpid T

# changed_or_waited N: the set changed N times, or a rescan waited.
changed_or_waited() {
	_c=$(ksnap_stat set_changes)
	_w=$(ksnap_stat set_change_waits)
	echo "set changes ${_c:-none}, waits ${_w:-none} (want $1 changes, or a wait)"
	[ "${_c:-0}" -ge "$1" ] || [ "${_w:-0}" -gt 0 ]
}
i=1
while [ $i -le $MAX_SETS ]; do
	mkdir $CG$D/c$i
	wait_for --quiet "set change $i or a wait" $WAIT_S changed_or_waited $i
	[ "$(ksnap_stat set_change_waits)" -gt 0 ] 2> /dev/null && break
	i=$((i + 1))
done
made=$((i > MAX_SETS ? MAX_SETS : i))
waits=$(ksnap_stat set_change_waits)
changes=$(ksnap_stat set_changes)
ok=no
[ "${waits:-0}" -gt 0 ] 2> /dev/null && ok=yes
check "with the reader stopped, a rescan waits before $MAX_SETS set changes" yes \
	"$ok$([ $ok = yes ] || echo " (waits ${waits:-none}, set changes ${changes:-none})")"
info "pace: $changes set changes before the first wait, $made cgroups made"

kill -CONT $kpid
# every_made: the set holds c0 .. c$made (pgfault and 2 columns each).
every_made() {
	_n=$(ksnap_plan columns)
	echo "columns ${_n:-none} (want $((1 + made + 1)))"
	[ "${_n:-0}" = $((1 + made + 1)) ]
}
check_wait "once ksnapd runs again, the set holds every cgroup made" \
	$WAIT_S every_made
wait_rows_of_set() { # the newest stream has rows
	_f=$(ls $OUT | sort -t. -k3 -n | tail -n 1)
	rows_at_least $OUT/$_f 2
}
wait_for "ksnapd writes the last set's rows" $WAIT_S wait_rows_of_set
check "stop" ok "$(guestprobe write $S/enable 0)"
wait_pid $kpid $WAIT_S
check_st "ksnapd --once writes every set and exits 0" 0 $? /out/ksnapd.err
changes=$(ksnap_stat set_changes)
check_lines "ksnapd met no set it could not name" 0 \
	"no longer known to the module" "$(cat /out/ksnapd.err)"
check "no record lost" 0 "$(ksnap_stat lost)"
bad=0 skipped=0
for f in $(ls $OUT); do
	ksnap-verify $OUT/$f > /out/verify.$f 2>&1 || bad=$((bad + 1))
	_s=$(grep 'STATS	' $OUT/$f | tail -n 1 |
		sed -n 's/.*"ksnapd_snapshots_skipped":\([0-9]*\).*/\1/p')
	skipped=$((skipped + ${_s:-0}))
done
check "every stream verifies ($(ls $OUT | wc -l) streams, $changes set changes)" 0 $bad
check "no stream's STATS counts a snapshot skipped for a set not named" 0 $skipped
unload
i=0
while [ $i -le $made ]; do
	rmdir $CG$D/c$i 2> /dev/null
	i=$((i + 1))
done
rmdir $CG$D 2> /dev/null
finish
