# SPDX-License-Identifier: MIT
# Guest half of the churn test: cgroups made and removed under a followed
# pattern at a high rate while a collection samples them at 10 ms.
# tests/guest/churn (the helper) makes CHURN_RATE cgroups a second under
# $D for CHURN_SECS seconds; every other one lives 2.2 to 3.4 s, the others
# 0.2 to 1.4 s.  ksnapd writes a stream per column set.  Checked:
#   - every cgroup that lived through a whole rescan of the patterns
#     (stats/rescans grew by 2 between its mkdir and its rmdir) is a
#     column of some stream, whatever the machine's speed, unless the
#     read's bound left it out (skipped or shed: logged); how many of
#     those that lived 2 s are columns is printed (the patterns are
#     expanded every CHURN_DISCOVER_MS, far less than 2 s);
#   - every stream is accepted by ksnap-verify, its STATS say taken =
#     rows + lost + the rows before it, and all the streams' rows and the
#     last one's lost are the collection's taken;
#   - the removed cgroups are not held: nr_dying_descendants comes back to
#     what it was, once stopped and once unloaded;
#   - (the runner) no splat.
# The rate a TCG guest reaches is short of CHURN_RATE: it is measured and
# printed ("# churn: ..."), never asserted.
# CHURN_SECS: 15, or 60 with KSNAP_TEST_LONG=1 (make check-all).
TEST=churn
. /guest/tests/lib.sh
S=$KSNAP_SYS
WAIT_S=${WAIT_S:-60}
D=/ksnapchurn
if [ "${KSNAP_TEST_LONG:-0}" = 1 ]; then
	CHURN_SECS=${CHURN_SECS:-60}
else
	CHURN_SECS=${CHURN_SECS:-15}
fi
CHURN_RATE=${CHURN_RATE:-100}
CHURN_DISCOVER_MS=${CHURN_DISCOVER_MS:-250}
OUT=/tmp/churn
info "churn: $CHURN_RATE cgroups a second for $CHURN_SECS s, patterns expanded every $CHURN_DISCOVER_MS ms"

unload
mkdir -p $CG$D $OUT
echo +memory +cpu > $CG$D/cgroup.subtree_control
check "$D's subtree_control has memory and cpu" "cpu memory" \
	"$(tr ' ' '\n' < $CG$D/cgroup.subtree_control | sort | tr '\n' ' ' | sed 's/ $//')"
# One cgroup there all along: the pattern matches at the start.
mkdir $CG$D/keep
base=$(dying)
info "nr_dying_descendants at the start: $base"

# About 180 cgroups are alive at once at 100 a second: the bound (the
# period, lib.sh) admits them at the start, at the price of keep's read.
modprobe ksnap metrics=pgfault,memory.current,cpu.stat.usage "cgroups=$D/*" \
	period_us=10000 discover_ms=$CHURN_DISCOVER_MS
check "load: a pattern, 10 ms, discover_ms=$CHURN_DISCOVER_MS" 0 $?

ksnapd --once -o $OUT/c.tsv 2> /out/ksnapd.err &
kpid=$!
wait_attached
check "start" ok "$(guestprobe write $S/enable 1)"
wait_rows $OUT/c.tsv 3
info "churn: the start admits $(( ($(ksnap_stat columns_admitted) - 1) / 2 )) cgroups at $(ksnap_stat cgroup_price_ns) ns each (estimate $(ksnap_stat read_estimate_ns) ns, bound $(ksnap_stat read_bound_ns) ns)"

klog_mark
read -r t0 _ < /proc/uptime
churn $CG$D "$CHURN_RATE" "$CHURN_SECS" > /out/churn.txt 2> /out/churn.err
st=$?
read -r t1 _ < /proc/uptime
check_st "the churn's mkdirs and rmdirs all succeed" 0 $st /out/churn.err
# every_found_removed: each cgroup a set change added, one removed since;
# the set is back to $D/keep alone.
every_found_removed() {
	_f=$(ksnap_stat cgroups_found)
	_r=$(ksnap_stat cgroups_removed)
	echo "cgroups found $_f, removed $_r"
	[ -n "$_f" ] && [ "$_f" = "$_r" ]
}
check_wait "after the churn a rescan drops the last removed cgroups (found = removed)" \
	$WAIT_S every_found_removed
# Reads above the bound shed cgroups; they never stop a set that has some.
check "the collection still runs: no stop for its reads" "running none" \
	"$(ksnap_stat state) $(ksnap_stat stop_reason)"
check "stop" ok "$(guestprobe write $S/enable 0)"
wait_pid $kpid $WAIT_S
st=$?
check_st "ksnapd --once writes every set of the collection and exits 0" 0 $st /out/ksnapd.err

# --- the figures -----------------------------------------------------------
made=$(grep -c '^c[0-9]' /out/churn.txt)
awk '/^c[0-9]/ && $3 - $2 >= 2000000000 { print $1 }' /out/churn.txt > /out/long.txt
long=$(wc -l < /out/long.txt)
# Those that lived through a whole rescan (stats/rescans grew by 2 between
# mkdir and rmdir): whatever the machine's speed, each must be a column.
awk '/^c[0-9]/ && NF == 5 && $4 != 18446744073709551615 && $5 != 18446744073709551615 && $5 - $4 >= 2 { print $1 }' \
	/out/churn.txt > /out/through.txt
through=$(wc -l < /out/through.txt)
rate=$(awk -v n="$made" -v s="$CHURN_SECS" 'BEGIN { printf "%.1f", n / s }')
taken=$(ksnap_stat taken)
changes=$(ksnap_stat set_changes)
info "churn: $made created, $long lived >= 2 s, rate $rate/s (asked $CHURN_RATE/s for $CHURN_SECS s; the churn took $(( ${t1%.*} - ${t0%.*} )) s)"
info "churn: set changes $changes, cgroups found $(ksnap_stat cgroups_found), removed $(ksnap_stat cgroups_removed), skipped $(ksnap_stat cgroups_skipped) at the last rescan, sheds $(ksnap_stat sheds), regrows $(ksnap_stat regrows)"
# A match removed between the rescan's walk and its check of the metrics
# (its memory controller already offline) is dropped, not an error that
# fails the whole rescan.
check_lines "no rescan fails on a cgroup removed during it" 0 \
	"has no memory controller" "$(klog_since)"
# A followed cgroup's removal is counted (cgroups_removed), not logged:
# under churn a line each would flood the kernel log.
check_lines "the churned cgroups' removals are not logged" 0 \
	"was removed while sampled" "$(klog_since)"
check "cgroups were made" yes "$([ "$made" -gt 0 ] && echo yes || echo no)"
check "some lived 2 s or more" yes "$([ "$long" -gt 0 ] && echo yes || echo no)"
check "some lived through a whole rescan" yes "$([ "$through" -gt 0 ] && echo yes || echo no)"
check "every cgroup's line has the rescans at its mkdir and rmdir" 0 \
	"$(awk '/^c[0-9]/ && (NF != 5 || $4 == 18446744073709551615 || $5 == 18446744073709551615)' /out/churn.txt | wc -l)"
check "the collection changed its set" yes \
	"$([ "${changes:-0}" -ge 1 ] && echo yes || echo no)"

# The streams in order: c.tsv, c.tsv.2, c.tsv.3, ...
streams=$(ls $OUT | sed -n 's/^c\.tsv$/c.tsv 1/p; s/^c\.tsv\.\([0-9]*\)$/c.tsv.\1 \1/p' |
	sort -n -k 2 | cut -d' ' -f1)
nstreams=$(echo $streams | wc -w)
check "a stream per set: set changes + 1" $((changes + 1)) "$nstreams"

# --- every cgroup that lived 2 s is a column of some stream -----------------
for f in $streams; do
	grep '^Time (ns)' $OUT/$f | tr '\t' '\n' |
		sed -n "s|^memory\.current\[$D/\(.*\)\]\$|\1|p"
done | sort -u > /out/seen.txt
awk 'NR == FNR { seen[$1] = 1; next } !($1 in seen)' /out/seen.txt /out/through.txt > /out/missing.txt
# Matches the start did not admit, or the timer shed, are left out, and
# the kernel logs each time it leaves some out (follow.c).
left_out=$(klog_since | grep -c -e 'pattern matches not sampled' -e 'cgroups shed')
if [ "$left_out" -eq 0 ]; then
	check "every cgroup that lived through a whole rescan is a column of some stream ($through cgroups; $(wc -l < /out/seen.txt) named in all)" \
		0 "$(wc -l < /out/missing.txt)"
else
	info "churn: the read's bound left matches out ($left_out log lines; sheds $(ksnap_stat sheds)): $(wc -l < /out/missing.txt) of $through that lived through a rescan are no column"
fi
[ -s /out/missing.txt ] && show "$(cat /out/missing.txt)"
# The figure the goal is stated in: of those that lived 2 s, how many are
# columns (all of them unless the guest was starved of CPU for a rescan).
awk 'NR == FNR { seen[$1] = 1; next } !($1 in seen)' /out/seen.txt /out/long.txt > /out/missing-2s.txt
info "churn: $((long - $(wc -l < /out/missing-2s.txt))) of the $long cgroups that lived 2 s or more are columns"

# --- the streams --------------------------------------------------------------
stat_of() { # FILE KEY: KEY of FILE's STATS line
	grep 'STATS	' "$1" | tail -n 1 | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p"
}
total=0 pos=0 skipped=0 bad_verify=0 bad_identity=0 bad_first=0 nolost=0 lost=0 last=""
for f in $streams; do
	p=$OUT/$f
	if ! ksnap-verify $p > $p.verify 2>&1; then
		bad_verify=$((bad_verify + 1))
		info "ksnap-verify rejects $f:"
		show "$(grep -e '^sequence: ' -e 'broken' -e 'missing' $p.verify | tail -n 8)"
	fi
	r=$(rows $p)
	t=$(stat_of $p ksnap_snapshots_taken)
	l=$(stat_of $p ksnap_snapshots_lost)
	fp=$(stat_of $p ksnapd_first_position)
	# Records of a set ksnapd fell too far behind to name: no rows.
	sk=$(stat_of $p ksnapd_snapshots_skipped)
	if [ "${t:-x}" != "$((r + ${l:-0} + ${fp:-0} + ${sk:-0}))" ]; then
		bad_identity=$((bad_identity + 1))
		info "$f: taken ${t:-none}, rows $r, lost ${l:-none}, first position ${fp:-none}, skipped ${sk:-none}"
	fi
	[ "${fp:-x}" = "$pos" ] || bad_first=$((bad_first + 1))
	total=$((total + r))
	skipped=$((skipped + ${sk:-0}))
	pos=$((pos + r + ${sk:-0}))
	lost=$((lost + ${l:-0}))
	last=$p
done
info "churn: $nstreams streams, $total rows, $skipped skipped, $lost lost (the last stream's $(stat_of $last ksnap_snapshots_lost)), taken $taken"
check "ksnap-verify accepts every stream" 0 $bad_verify
check "every stream's STATS: taken = its rows + lost + skipped + the positions before it" 0 $bad_identity
check "every stream begins where the one before ended" 0 $bad_first
check "the streams' rows and skipped and the last one's lost are the collection's taken" \
	"$taken" "$((total + skipped + $(stat_of $last ksnap_snapshots_lost)))"

# --- nothing held -------------------------------------------------------------
check_wait "stopped: the removed cgroups are not held, nr_dying_descendants back to $base" \
	$WAIT_S dying_at_most "$base"
unload
rmdir $CG$D/keep $CG$D
check_wait "unloaded: nr_dying_descendants back to $base" $WAIT_S dying_at_most "$base"
rm -rf $OUT
finish
