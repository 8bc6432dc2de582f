# SPDX-License-Identifier: MIT
# Guest half of the followed-set test.  A running collection whose cgroups
# are patterns expands them again every discover_ms: cgroups made under
# the pattern become columns of a new column set, removed ones leave it
# (and are not held: nr_dying_descendants comes back), each change at a
# snapshot boundary with its first record flagged KSNAP_REC_SET_CHANGED.
# A start admits the cgroups its read's bound leaves room for; matches
# past them are skipped and counted.  ksnapd writes each set
# as a stream of its own, in FILE, FILE.2, ...; ksnap-verify accepts each,
# and no snapshot is lost between them.
TEST=follow
. /guest/tests/lib.sh
S=$KSNAP_SYS
P=/sys/module/ksnap/parameters
WAIT_S=${WAIT_S:-30}
D=/ksf

# last_set: the cgroups of the cpu.stat.usage columns of the last set the
# reader (guestprobe sets) met in a record, as it asked for them then.
last_set() {
	sed -n 's/^set [0-9]* cgroups *//p' /out/follow.sets | tail -n 1
}

# cgroups_are LIST: the last set the reader met names exactly LIST.
cgroups_are() {
	_s=$(last_set)
	echo "the reader's last set names '$_s'"
	[ "$_s" = "$1" ]
}

unload
mkdir -p $CG$D
echo +memory > $CG$D/cgroup.subtree_control
check "$D's subtree_control has memory" yes \
	"$(grep -qw memory $CG$D/cgroup.subtree_control && echo yes || echo no)"
mkdir $CG$D/a
base=$(dying)
info "nr_dying_descendants at the start: $base"

# --- the knobs --------------------------------------------------------------
modprobe ksnap metrics=pgfault,cpu.stat.usage,memory.current \
	"cgroups=$D/*" period_us=2000 discover_ms=100
check "load with a pattern and discover_ms" 0 $?
check "discover_ms reads back" 100 "$(cat $P/discover_ms)"
check "a discover_ms below 100 is refused" EINVAL \
	"$(guestprobe write $P/discover_ms 99)"
check "a discover_ms above 60000 is refused" EINVAL \
	"$(guestprobe write $P/discover_ms 60001)"
check "discover_ms unchanged by the refusals" 100 "$(cat $P/discover_ms)"

# --- cgroups come and go while sampled --------------------------------------
guestprobe sets 600 > /out/follow.sets 2> /out/follow.sets.err &
rpid=$!
wait_attached
check "start" ok "$(guestprobe write $S/enable 1)"
wait_samples 5
check_wait "the first set names the one match" $WAIT_S cgroups_are "$D/a"
check "no set change yet: stats/set_change_pause_max_ns" 0 \
	"$(ksnap_stat set_change_pause_max_ns)"
mkdir $CG$D/b $CG$D/c
check_wait "cgroups made while sampled become columns of a new set" \
	$WAIT_S cgroups_are "$D/a $D/b $D/c"
check "stats: cgroups_found" 2 "$(ksnap_stat cgroups_found)"
check "a set change is counted" yes \
	"$([ "$(ksnap_stat set_changes)" -ge 1 ] && echo yes || echo no)"
pause=$(ksnap_stat set_change_pause_max_ns)
info "the longest pause of the timer at a set change: $pause ns"
check "the set change's pause of the timer is published (stats/set_change_pause_max_ns above 0)" \
	yes "$([ "$pause" -gt 0 ] && echo yes || echo "no ($pause)")"
wait_samples 5
rmdir $CG$D/b
check_wait "a cgroup removed while sampled leaves the set" \
	$WAIT_S cgroups_are "$D/a $D/c"
check_wait "stats: cgroups_removed" $WAIT_S stat_is cgroups_removed 1
check_wait "the removed cgroup is not held while the collection runs: nr_dying_descendants back to $base" \
	$WAIT_S dying_at_most "$base"
wait_samples 5

changes=$(ksnap_stat set_changes)
info "set changes: $changes"
check "stop" ok "$(guestprobe write $S/enable 0)"
wait_pid $rpid $WAIT_S
check "the reader ends after the stop" 0 $?

# --- the records ------------------------------------------------------------
# "seq set_id flags": set ids never step back, and the first record of
# each set after the first is flagged KSNAP_REC_SET_CHANGED (16), no other.
# The reader named every set and lost nothing; on a debug kernel, whose
# reader can fall a ring behind beside a busy host, what it lost is
# counted instead (check_sets_counted: lost, skipped, overwritten).
if debug_kernel; then
	check_sets_counted /out/follow.sets
else
	n=$(grep -c '^[0-9]' /out/follow.sets)
	check "the reader named every set's columns when it met the set" 0 \
		"$(grep '^set ' /out/follow.sets | grep -vc ' cgroups\( /[^ ]*\)*$')"
	check "every snapshot taken is a record (none lost)" "$(ksnap_stat taken)" "$n"
fi
check "the records' sets never step back" 0 \
	"$(awk '/^[0-9]/ { if (++k > 1 && $2 < s) b++; s = $2 } END { print b + 0 }' /out/follow.sets)"
check "as many sets in the records as set changes, plus the first" \
	$((changes + 1)) "$(awk '/^[0-9]/ { print $2 }' /out/follow.sets | sort -u | wc -l)"
check "each set's first record, and only it, is flagged set-changed" 0 \
	"$(awk '/^[0-9]/ { f = int($3 / 16) % 2; first = (++k > 1 && $2 != s); if (f != first) b++; s = $2 } END { print b + 0 }' /out/follow.sets)"

# --- ksnapd: a stream per set ---------------------------------------------
# header_cgroups FILE: the cgroups its header's cpu.stat.usage columns name.
header_cgroups() {
	grep '^Time (ns)' "$1" | tr '\t' '\n' |
		sed -n 's/^cpu\.stat\.usage\[\(.*\)\]$/\1/p' | sort | tr '\n' ' ' |
		sed 's/ $//'
}

# stat_of FILE KEY: KEY of FILE's STATS line.
stat_of() {
	grep 'STATS	' "$1" | tail -n 1 | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p"
}

rm -f /out/s.tsv*
ksnapd --once -o /out/s.tsv 2> /out/s.err &
kpid=$!
wait_attached
check "ksnapd: start" ok "$(guestprobe write $S/enable 1)"
wait_rows /out/s.tsv 3
mkdir $CG$D/g
wait_line /out/s.tsv.2 "cpu.stat.usage[$D/g]"
wait_rows /out/s.tsv.2 3
rmdir $CG$D/g
wait_line /out/s.tsv.3 "Time (ns)"
wait_rows /out/s.tsv.3 3
check "ksnapd: stop" ok "$(guestprobe write $S/enable 0)"
wait_pid $kpid $WAIT_S
st=$?
[ $st -eq 0 ] || info "ksnapd said: $(tr '\n' ' ' < /out/s.err)"
check "ksnapd --once writes every set of the collection and exits 0" 0 $st
check "the first stream names the cgroups at the start" "$D/a $D/c" \
	"$(header_cgroups /out/s.tsv)"
check "the second stream names the one made while sampled" "$D/a $D/c $D/g" \
	"$(header_cgroups /out/s.tsv.2)"
check "the third stream no longer names the removed one" "$D/a $D/c" \
	"$(header_cgroups /out/s.tsv.3)"
total=0
for f in /out/s.tsv /out/s.tsv.2 /out/s.tsv.3; do
	check "${f#/out/}: one STATS line" 1 "$(grep -c 'STATS	' $f)"
	ksnap-verify $f > $f.verify 2>&1
	st=$?
	check "ksnap-verify accepts ${f#/out/} ($(tail -n 1 $f.verify))" 0 $st
	r=$(rows $f)
	sk=$(stat_of $f ksnapd_snapshots_skipped)
	check "${f#/out/}: taken = its rows + lost + skipped + positions before it" \
		"$(stat_of $f ksnap_snapshots_taken)" \
		"$((r + $(stat_of $f ksnap_snapshots_lost) + ${sk:-0} + $(stat_of $f ksnapd_first_position)))"
	check "${f#/out/}: it begins where the last one ended" $total \
		"$(stat_of $f ksnapd_first_position)"
	total=$((total + r + ${sk:-0}))
done
check "the rows and skipped of the three streams and the last one's lost are the collection's taken" \
	"$(ksnap_stat taken)" "$((total + $(stat_of /out/s.tsv.3 ksnap_snapshots_lost)))"

# --- more matches than the start admits --------------------------------------
# The start admits a few cgroups (admit_start, lib.sh): two matches past
# them are skipped and counted, the set holds the first in path order, and
# once the two go, every match again.
unload
modprobe ksnap metrics=pgfault,cpu.stat.usage,memory.current \
	"cgroups=$D/*" period_us=2000 discover_ms=100 overflow=overwrite
check "load: the pattern again, no reader" 0 $?
klog_mark
if admit_start 1 2 3 12; then
	pass "start: $admitted cgroups admitted, $D/a and $D/c among them"
	cap=$(ksnap_stat columns_admitted)
	want="$D/a $D/c"
	i=1
	while [ $i -le "$admitted" ]; do
		mkdir $CG$D/m$(printf %02d $i)
		[ $i -gt $((admitted - 2)) ] || want="$want $D/m$(printf %02d $i)"
		i=$((i + 1))
	done
	check_wait "the two matches past the $admitted admitted are skipped and counted" \
		$WAIT_S stat_is cgroups_skipped 2
	check_wait "the set holds the $admitted admitted, the first in path order" \
		$WAIT_S ring_cgroups_are "$want"
	check_lines "a log line says that matches are not sampled, and why" ">0" \
		"pattern matches not sampled, the first '" "$(klog_since)"
	rmdir $CG$D/m[0-9]*
	check_wait "once they go, the set is the two left" \
		$WAIT_S ring_cgroups_are "$D/a $D/c"
	check_wait "stats: cgroups_skipped back to 0" $WAIT_S stat_is cgroups_skipped 0
	check "reads within the bound shed nothing: the room is what the start admitted" \
		"0 $cap" "$(ksnap_stat sheds) $(ksnap_stat columns_admitted)"
	check "stop" ok "$(guestprobe write $S/enable 0)"
fi

# --- a configured path removed: no set change ------------------------------
# A path beside a pattern stays in the set when its cgroup is removed
# (frozen and flagged stale, as without patterns): the rescans find the
# same set, so they change nothing, and the removal is logged once.
unload
mkdir $CG$D/path1
modprobe ksnap metrics=pgfault,memory.current "cgroups=$D/path1,$D/q-*" period_us=2000 discover_ms=100
check "load: a path and a pattern" 0 $?
check "start" ok "$(guestprobe write $S/enable 1)"
wait_samples 5
changes=$(ksnap_stat set_changes)
klog_mark
rmdir $CG$D/path1
# Past several discovery intervals (100 ms each) at 2 ms a snapshot.
wait_samples 300
check "a removed configured path is no set change" "$changes" "$(ksnap_stat set_changes)"
check "nor a cgroup found or removed" "0 0" "$(ksnap_stat cgroups_found) $(ksnap_stat cgroups_removed)"
check "stop" ok "$(guestprobe write $S/enable 0)"
check_lines "its removal is logged once" 1 "'$D/path1' was removed while sampled" "$(klog_since)"

# --- a group whose patterns match nothing yet --------------------------------
# metrics=container on a host with no container yet: the group's
# per-cgroup metrics are selected all the same, and the records have room
# for them, so the first cgroup made is sampled with them.  (A start needs
# one column: pgfault is it until a cgroup matches.)
unload
modprobe ksnap metrics=container,pgfault "cgroups=$D/new-*" period_us=2000 discover_ms=100
check "load: the container group with a pattern that matches nothing yet" 0 $?
rm -f /out/g.tsv*
ksnapd --once -o /out/g.tsv 2> /out/g.err &
kpid=$!
wait_attached
check "a start with no match yet" ok "$(guestprobe write $S/enable 1)"
wait_rows /out/g.tsv 3
mkdir $CG$D/new-1
wait_line /out/g.tsv.2 "memory.current[$D/new-1]"
check "the group's memory.current follows a cgroup made after the start" yes \
	"$(grep -q "memory.current\[$D/new-1\]" /out/g.tsv.2 && echo yes || echo no)"
check "no cgroup was skipped for want of room" 0 "$(ksnap_stat cgroups_skipped)"
check "ksnapd: stop" ok "$(guestprobe write $S/enable 0)"
wait_pid $kpid $WAIT_S
check "ksnapd --once exits 0" 0 $?
rmdir $CG$D/new-1

# --- ksnapd: the matches left out, in STATS --------------------------------
# Three matches at the start, and room for a few more (admit_start); the
# match one past them, made while sampled, is left out, counted in
# stats/cgroups_skipped and in the STATS that ksnapd writes at the stop
# (ksnap_cgroups_skipped).  ksnapd comes to the running collection.
unload
mkdir $CG$D/s01 $CG$D/s02 $CG$D/s03
modprobe ksnap metrics=pgfault,memory.current "cgroups=$D/s*" period_us=2000 \
	discover_ms=100
check "load: three matches" 0 $?
if admit_start 1 1 4 12; then
	pass "start: $admitted cgroups admitted"
	rm -f /out/k.tsv*
	ksnapd --once -o /out/k.tsv 2> /out/k.err &
	kpid=$!
	wait_attached
	wait_rows /out/k.tsv 3
	i=4
	while [ $i -le $((admitted + 1)) ]; do
		mkdir $CG$D/s$(printf %02d $i)
		i=$((i + 1))
	done
	last=$D/s$(printf %02d $((admitted + 1)))
	check_wait "the match past the $admitted admitted is skipped and counted" $WAIT_S \
		stat_is cgroups_skipped 1
	wait_samples 5
	check "ksnapd: stop" ok "$(guestprobe write $S/enable 0)"
	wait_pid $kpid $WAIT_S
	check "ksnapd --once exits 0" 0 $?
	# A stream per set (FILE, FILE.2, ...): the last has the set at the stop.
	lastk=$(ls /out/k.tsv* | sort -t. -k3 -n | tail -n 1)
	check "the last stream's STATS say what stats/cgroups_skipped says" \
		"$(ksnap_stat cgroups_skipped)" "$(stat_of "$lastk" ksnap_cgroups_skipped)"
	check "the last stream names the $admitted admitted" "$admitted" \
		"$(grep '^Time (ns)' "$lastk" | tr '\t' '\n' | grep -c "^memory\.current\[$D/s")"
	check "no stream names the skipped match" 0 \
		"$(cat /out/k.tsv* | grep -c "memory.current\[$last\]")"
fi
unload
rmdir $CG$D/s[0-9]*

rmdir $CG$D/c
unload
rmdir $CG$D/a
check_wait "after unload, nr_dying_descendants back to $base" \
	$WAIT_S dying_at_most "$base"
rmdir $CG$D
finish
