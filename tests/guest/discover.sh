# SPDX-License-Identifier: MIT
# Guest half of the discovery test: a cgroup made or removed under a
# running collection's pattern starts a rescan at once (the module's
# probes on the cgroup tracepoints), long before the periodic one
# (discover_ms=60000 here: its first rescan is due a minute after the
# start).  A burst of mkdirs makes a few set changes, not one each, and a
# reader names every set it meets.  A collection stopped and started again
# still hears the events.  (cgroup v2 refuses rename(2): EPERM, checked
# below, so a followed cgroup keeps its name.)
TEST=discover
. /guest/tests/lib.sh
S=$KSNAP_SYS
P=/sys/module/ksnap/parameters
WAIT_S=${WAIT_S:-40}
DISC_MS=60000
D=/ksd

# now_ms: milliseconds since boot, from /proc/uptime (no process).
now_ms() {
	read -r _up _rest < /proc/uptime
	echo $(( ${_up%.*} * 1000 + 10 * 1${_up#*.} - 1000 ))
}

# reader_set_is LIST: the last set the running reader (guestprobe sets)
# met in a record names exactly LIST in its cpu.stat.usage columns.
reader_set_is() {
	_rs=$(sed -n 's/^set [0-9]* cgroups *//p' /out/discover.sets | tail -n 1)
	echo "the reader's last set names '$_rs'"
	[ "$_rs" = "$1" ]
}

# found_by_events WHAT LIST [HOW]: the set comes to name LIST (HOW:
# ring_cgroups_are, or reader_set_is while a reader runs), from an event's rescan: before
# the periodic one was due (the start at $t0), and counted in
# stats/event_rescans.
found_by_events() {
	if ! check_wait "$1: the set comes to name '$2'" $WAIT_S ${3:-ring_cgroups_are} "$2"; then
		return
	fi
	_el=$(( $(now_ms) - t0 ))
	if [ $_el -lt $DISC_MS ]; then
		pass "$1: in a set installed before the periodic rescan was due (${_el} ms after the start)"
	else
		fail "$1: in a set installed before the periodic rescan was due" \
			"within $DISC_MS ms of the start" "after $_el ms"
	fi
	check "$1: stats/rescans counts no periodic rescan" yes \
		"$([ "$(ksnap_stat rescans)" -le "$(ksnap_stat event_rescans)" ] && echo yes || echo "no ($(ksnap_stat rescans) rescans, $(ksnap_stat event_rescans) by events)")"
}

unload
mkdir -p $CG$D
mkdir $CG$D/a

# --- the knob ------------------------------------------------------------------
modprobe ksnap metrics=pgfault,cpu.stat.usage "cgroups=$D/*" \
	period_us=10000 discover_ms=$DISC_MS settle_ms=5
check "load with a pattern, discover_ms and settle_ms" 0 $?
check "settle_ms reads back" 5 "$(cat $P/settle_ms)"
check "a settle_ms of 0 is refused" EINVAL "$(guestprobe write $P/settle_ms 0)"
check "a settle_ms above 1000 is refused" EINVAL \
	"$(guestprobe write $P/settle_ms 1001)"
check "settle_ms unchanged by the refusals" 5 "$(cat $P/settle_ms)"
check "the module attached its probes (no fallback line in the log)" "" \
	"$(dmesg | grep 'no probe on the tracepoint')"

# --- made, removed, renamed ------------------------------------------------------
guestprobe sets 900 > /out/discover.sets 2> /out/discover.sets.err &
rpid=$!
wait_attached
t0=$(now_ms)
check "start" ok "$(guestprobe write $S/enable 1)"
wait_samples 3
check_wait "the first set names the one match" $WAIT_S reader_set_is "$D/a"
mkdir $CG$D/b
found_by_events "made" "$D/a $D/b" reader_set_is
rmdir $CG$D/b
found_by_events "removed" "$D/a" reader_set_is
check "a rename on cgroup v2 is refused: a followed cgroup keeps its name" \
	"Operation not permitted" \
	"$(mv $CG$D/a $CG$D/r 2>&1 | grep -o 'Operation not permitted')"
check "no set change came without an event" yes \
	"$([ "$(ksnap_stat set_changes)" -le "$(ksnap_stat event_rescans)" ] && echo yes || echo no)"

# --- a burst (cgroups_found: b above, and these 200) ----------------------------
# 200 mkdirs from one process: the rescans the events start are 2 back
# to back, then one every 200 ms, and one settle_ms after the last
# event, so the set changes are bounded by the burst's length, not by
# its size.
c0=$(ksnap_stat set_changes)
b0=$(now_ms)
names=
i=1
while [ $i -le 200 ]; do
	names="$names m$(printf %03d $i)"
	i=$((i + 1))
done
(cd $CG$D && mkdir $names)
b1=$(now_ms)
check_wait "burst: every one of the 200 is found" $WAIT_S \
	stat_is cgroups_found 201
changes=$(( $(ksnap_stat set_changes) - c0 ))
bound=$(( (b1 - b0) / 200 + 4 ))
info "burst: 200 mkdirs in $((b1 - b0)) ms made $changes set changes"
check "burst: at most $bound set changes (one per 200 ms of the burst, plus four)" \
	yes "$([ $changes -le $bound ] && [ $changes -ge 1 ] && echo yes || echo "no ($changes)")"
check "burst: nothing skipped" 0 "$(ksnap_stat cgroups_skipped)"
rmdir $CG$D/m[0-9]*
check_wait "burst: once removed, the set is the one left" $WAIT_S \
	reader_set_is "$D/a"
check "stop" ok "$(guestprobe write $S/enable 0)"
wait_pid $rpid $WAIT_S
check "the reader ends after the stop" 0 $?
# On a debug kernel, beside a busy host, the reader can fall a ring, and
# more set changes than the module keeps, behind the burst: what it lost
# and the sets it could not name are counted instead (check_sets_counted).
if debug_kernel; then
	check_sets_counted /out/discover.sets
else
	check "the reader named every set's columns when it met the set (none behind the old sets kept)" 0 \
		"$(grep '^set ' /out/discover.sets | grep -vc ' cgroups\( /[^ ]*\)*$')"
	check "every snapshot taken is a record (none lost)" "$(ksnap_stat taken)" \
		"$(grep -c '^[0-9]' /out/discover.sets)"
fi

# --- stopped, started again ----------------------------------------------------------
# A start after a stop hears the events again.
mkdir $CG$D/s
check "start again" ok "$(guestprobe write $S/enable 1)"
t0=$(now_ms)
check_wait "the start's set names both" $WAIT_S ring_cgroups_are "$D/a $D/s"
mkdir $CG$D/t
found_by_events "made after a restart" "$D/a $D/s $D/t"
check "stop" ok "$(guestprobe write $S/enable 0)"

# --- a wait for the reader is no event ------------------------------------------------
# A periodic rescan that finds the reader still to meet the oldest set kept
# waits for it (stats/set_change_waits), and the rescan that runs once it
# has is the periodic one's: stats/event_rescans counts only what the
# cgroup events started.  The reader, once past the start's first
# records, holds its tail still (set-tail) while five mkdirs make five
# set changes (the sets kept: the last four swapped out): a sixth would
# push out the names of the first of them, which began after the tail.  A period of 100 ms keeps the ring (128 records,
# a pattern's layout) from filling meanwhile, which would end the wait.
echo 100 > $P/discover_ms
check "period_us=100000 for the wait" ok \
	"$(guestprobe write $S/period_us 100000)"
check "start with discover_ms=100" ok "$(guestprobe write $S/enable 1)"
wait_samples 2
guestprobe set-tail head 100000000 > /out/discover.stall 2>&1 &
spid=$!
wait_attached
for u in u1 u2 u3 u4 u5; do
	n0=$(ksnap_stat event_rescans)
	mkdir $CG$D/$u
	check_wait "deferred: the event of $u's mkdir starts a rescan" $WAIT_S \
		stat_above event_rescans "$n0"
	info "deferred: $u: $(for k in rescans event_rescans set_changes set_change_waits lost taken; do printf '%s %s ' $k "$(ksnap_stat $k)"; done) $(now_ms)"
done
check_wait "deferred: a periodic rescan waits for the reader" $WAIT_S \
	stat_above set_change_waits 0
ev=$(ksnap_stat event_rescans)
info "deferred: $(for k in rescans event_rescans set_changes set_change_waits; do printf '%s %s ' $k "$(ksnap_stat $k)"; done)"
kill $spid
wait $spid
r0=$(ksnap_stat rescans)
check_wait "deferred: periodic rescans run again once the reader is gone" \
	$WAIT_S stat_above rescans $((r0 + 2))
info "deferred: $(for k in rescans event_rescans set_changes set_change_waits; do printf '%s %s ' $k "$(ksnap_stat $k)"; done)"
check "deferred: event_rescans counts no rescan the wait deferred" "$ev" \
	"$(ksnap_stat event_rescans)"
check "stop" ok "$(guestprobe write $S/enable 0)"
unload
rmdir $CG$D/a $CG$D/s $CG$D/t $CG$D/u[1-5] $CG$D
finish
