# SPDX-License-Identifier: MIT
# Guest half of the ksnapd test: the daemon's life cycle against the real
# module, each stream checked by ksnap-verify in the guest.
#   plain, lossy     end to end, a few seconds at 1 ms with a workload
#   mixed            --lossy on stdout through a pipe shared with another
#                    process's log lines
#   rotate           SIGHUP after the file was moved away (log rotation),
#                    plain and lossy: each file a stream of its own
#   restart          start/stop/start while ksnapd runs: FILE and FILE.2
#   quick            echo 1; echo 0 before ksnapd notices: written all the
#                    same, the next start not refused, poll() not spinning
#   stop-on-exit     --start --stop-on-exit and SIGTERM: the module's last
#                    snapshot is in the stream, STATS after the stop
#   sigint           SIGINT: the ring drained, STATS and ADLER32, exit 0,
#                    the collection left running
#   load             --load=period_us=500 with the module not loaded
#   wait             ksnapd started before the module: waits, then attaches
#   busy             --start with cgroup patterns while another reader
#                    holds the device: waits, starting nothing, and starts
#                    once the device is free
#   wake_ms          ksnapd is woken once per wake_ms of records (stats
#                    wakeups), at the load's value and at a knob's
#   long-path        a cgroup nested to a path of about 300 bytes: its
#                    column read whole through the device's ioctl (and
#                    the ioctl's errors), its full name in the header
#   many-columns     300 cgroups' memory.current, more columns than the
#                    control region once held (256): all in the header
# Everything ksnapd wrote (and what ksnap-verify said, *.verify) is left in
# /out.
TEST=ksnapd
. /guest/tests/lib.sh

METRICS=pgfault,nr_free_pages
PERIOD_US=1000
PREFIX=$(printf 'GVISOR_METRICS\t')

# --- helpers -----------------------------------------------------------------

# wait_stats FILE: FILE has its STATS line (the collection is written).
wait_stats() {
	wait_line "$1" "STATS	"
}

# verify NAME FILE WANT: ksnap-verify FILE exits WANT (its report in
# /out/NAME.verify; on a mismatch the first findings go in the message).
verify() {
	ksnap-verify "$2" > /out/$1.verify 2>&1
	st=$?
	if [ "$st" = "$3" ]; then
		pass "ksnap-verify $1: exit status $3 ($(tail -n 1 /out/$1.verify))"
	else
		fail "ksnap-verify $1: exit status $3" "$3" "$st: $(head -n 8 /out/$1.verify | tr '\n' '|')"
	fi
}

# stat_of KEY FILE: a number from the (last) STATS line of FILE.
stat_of() {
	grep 'STATS	' "$2" | tail -n 1 | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"
}

# count_of PATTERN FILE: lines starting with PATTERN (after a lossy prefix).
count_of() {
	grep -c "^\($PREFIX\)\{0,1\}$1" "$2"
}

# times_increase FILE...: the row times of the files, in order, strictly
# increase; prints "ok" or the first offending pair.
times_increase() {
	cat "$@" | sed -n "s/^\($PREFIX\)\{0,1\}\([0-9][0-9]*\)	.*/\2/p" |
		awk 'NR > 1 && $1 <= last { print "row " NR ": " $1 " after " last; bad = 1; exit }
		     { last = $1 } END { if (!bad) print "ok" }'
}

# enable VALUE: write to enable; "ok" or the errno name.
enable() {
	guestprobe write $KSNAP_SYS/enable "$1"
}

# start_answered: write 1 to enable; succeeds unless the answer is EBUSY
# (the reader has not finished the previous collection yet).
start_answered() {
	_e=$(enable 1)
	echo "$_e"
	[ "$_e" != EBUSY ]
}

# start_retry: write 1 to enable, retrying EBUSY until the reader is done
# with the previous collection; the last answer in $started.
start_retry() {
	wait_for --quiet "a start that is not EBUSY" $WAIT_S start_answered
	started=$seen
}

# one_collection WHAT FILE ROWS: ksnapd --once writes FILE while a
# collection is started, takes ROWS rows and is stopped; ksnapd exits 0.
one_collection() {
	ksnapd --once -o "$2" 2> "${2%.tsv}.err" &
	kpid=$!
	wait_attached
	check "$1: writing 1 to enable starts a collection" ok "$(enable 1)"
	wait_rows "$2" "$3"
	check "$1: writing 0 to enable stops it" ok "$(enable 0)"
	wait_pid $kpid $WAIT_S
	check "$1: ksnapd exits 0" 0 $?
}

load() {
	unload
	modprobe ksnap metrics=$METRICS period_us=$PERIOD_US "$@"
}

# A small workload: page faults (memhog) while sampling.
workload() {
	memhog 16 1 >/dev/null 2>&1
}

# foreign_after_header FILE: a line that is not ksnapd's after the
# stream's column header.
foreign_after_header() {
	awk -v p="$PREFIX" 'index($0, p "Time (ns)") == 1 { h = NR } h && /^app\[/ { print "line " NR ": " $0; found = 1; exit }
		END { if (!found) print (h ? "header at line " h ", no foreign line after it" : "no header yet"); exit !found }' "$1"
}

# collection_rows NAME FILE [MIN]: rows >= MIN (default 1: the stop's
# snapshot; more when the test waited for rows before the stop) and
# rows == STATS total_snapshots == the kernel's taken - lost (ksnapd's
# own figure and the module's).
collection_rows() {
	r=$(rows "$2")
	min=${3:-1}
	tot=$(stat_of total_snapshots "$2")
	taken=$(stat_of ksnap_snapshots_taken "$2")
	lost=$(stat_of ksnap_snapshots_lost "$2")
	info "$1: $r rows, STATS total_snapshots $tot, taken $taken, lost $lost"
	if [ "${r:-0}" -ge "$min" ]; then pass "$1: ksnapd wrote rows ($r >= $min)"; else fail "$1: ksnapd wrote rows" ">= $min" "'$r'"; fi
	check "$1: rows == STATS total_snapshots" "$tot" "$r"
	check "$1: rows == STATS ksnap_snapshots_taken - ksnap_snapshots_lost" "$((${taken:-0} - ${lost:-0}))" "$r"
}

# --- 1. plain and lossy end to end ---------------------------------------------

end_to_end() { # NAME FILE [ksnapd options]
	name=$1 f=$2
	shift 2
	if ! load; then
		fail "$name: module loads" "modprobe status 0" "failure"
		return
	fi
	ksnapd --once "$@" -o "$f" 2> /out/$name.err &
	kpid=$!
	wait_attached
	check "$name: writing 1 to enable starts a collection" ok "$(enable 1)"
	workload
	wait_rows "$f" 100
	check "$name: writing 0 to enable stops it" ok "$(enable 0)"
	wait_pid $kpid $WAIT_S
	check "$name: ksnapd --once $* exits 0 after the stop" 0 $?
	verify $name "$f" 0
	collection_rows $name "$f" 100
	check "$name: one STATS line" 1 "$(count_of 'STATS	' "$f")"
	check "$name: row times strictly increase" ok "$(times_increase "$f")"
}

end_to_end plain /out/plain.tsv
check "plain: no line has the lossy prefix" 0 "$(grep -c "^$PREFIX" /out/plain.tsv)"

end_to_end lossy /out/lossy.log --lossy
check "lossy: every line is empty or has the GVISOR_METRICS prefix" 0 \
	"$(grep -v -c -e '^$' -e "^$PREFIX" /out/lossy.log)"
check "lossy: the last line is ADLER32" yes \
	"$(grep -v '^$' /out/lossy.log | tail -n 1 | grep -q "^${PREFIX}ADLER32	0x" && echo yes || echo no)"
check "lossy: the header has a Checksum column" 1 \
	"$(grep -c "^${PREFIX}Time (ns)	.*	Checksum	0x" /out/lossy.log)"

# --- 2. lossy on stdout, sharing a pipe with another process's log lines -----

if load; then
	rm -f /tmp/mixed.status
	(
		# Another process's log lines, at its own pace.
		( i=0; while :; do echo "app[$$]: some log line $i, with a tab	here"; i=$((i + 1)); usleep 20000; done ) &
		wp=$!
		ksnapd --once --lossy 2> /out/mixed.err
		echo $? > /tmp/mixed.status
		# The writer's own pace: a few more lines after the stream.
		usleep 100000
		kill $wp
	) | cat > /out/mixed.log &
	ppid=$!
	wait_attached
	check "mixed: writing 1 to enable starts a collection" ok "$(enable 1)"
	workload
	# Interleaved: stream rows, and foreign lines after the stream began.
	wait_rows /out/mixed.log 100
	wait_for "a foreign line after the stream's header in the pipe" $WAIT_S foreign_after_header /out/mixed.log
	check "mixed: writing 0 to enable stops it" ok "$(enable 0)"
	wait_pid $ppid $WAIT_S
	check "mixed: ksnapd --once --lossy on a pipe exits 0" 0 "$(cat /tmp/mixed.status 2>&1)"
	nf=$(grep -c '^app\[' /out/mixed.log)
	if [ "${nf:-0}" -gt 0 ]; then pass "mixed: the pipe holds foreign lines ($nf)"; else fail "mixed: the pipe holds foreign lines" "> 0" "'$nf'"; fi
	verify mixed /out/mixed.log 0
	sk=$(sed -n 's/.*skipped: \([0-9]*\) lines not part of the stream.*/\1/p' /out/mixed.verify)
	check "mixed: ksnap-verify skips exactly the foreign lines" "$nf" "$sk"
	collection_rows mixed /out/mixed.log 100
else
	fail "mixed: module loads" "modprobe status 0" "failure"
fi

# --- 3. SIGHUP: log rotation ------------------------------------------------------
# Each file stands alone: the new one begins with META, START_TIME and the
# header; only the last has STATS (ksnapd_rows_in_earlier_files counts the
# rows before it).  ksnap-verify checks each file by itself.

rotate() { # NAME FILE WANT-OLD [ksnapd options]
	name=$1 f=$2 want_old=$3
	shift 3
	if ! load; then
		fail "$name: module loads" "modprobe status 0" "failure"
		return
	fi
	rm -f $f $f.1
	ksnapd --once "$@" -o $f 2> /out/$name.err &
	kpid=$!
	wait_attached
	check "$name: writing 1 to enable starts a collection" ok "$(enable 1)"
	workload
	wait_rows $f 1
	mv $f $f.1
	kill -HUP $kpid
	workload
	# The new file, with rows: ksnapd has reopened the name.
	wait_rows $f 1
	check "$name: writing 0 to enable stops it" ok "$(enable 0)"
	wait_pid $kpid $WAIT_S
	check "$name: ksnapd exits 0 after a SIGHUP and the stop" 0 $?
	check "$name: ksnapd says it reopened the file" 1 "$(grep -c "SIGHUP: reopened $f\$" /out/$name.err)"
	check "$name: a new $f was created" yes "$([ -f $f ] && echo yes || echo no)"
	r1=$(rows $f.1) r2=$(rows $f)
	if [ "${r1:-0}" -gt 0 ] && [ "${r2:-0}" -gt 0 ]; then
		pass "$name: rows before the SIGHUP in the old file ($r1), after it in the new one ($r2)"
	else
		fail "$name: rows in both files" "> 0 and > 0" "'$r1' and '$r2'"
	fi
	check "$name: the old file has 2 META, START_TIME and header, no STATS" "2 1 1 0" \
		"$(count_of META $f.1) $(count_of START_TIME $f.1) $(count_of 'Time (ns)' $f.1) $(count_of STATS $f.1)"
	check "$name: the new file has 2 META, START_TIME and header too, and one STATS" "2 1 1 1" \
		"$(count_of META $f) $(count_of START_TIME $f) $(count_of 'Time (ns)' $f) $(count_of STATS $f)"
	st1=$(sed -n "s/^\($PREFIX\)\{0,1\}START_TIME	\([0-9]*\).*/\2/p" $f.1)
	st2=$(sed -n "s/^\($PREFIX\)\{0,1\}START_TIME	\([0-9]*\).*/\2/p" $f)
	if [ -n "$st1" ] && [ "$st1" = "$st2" ]; then
		pass "$name: both files have the collection's START_TIME"
	else
		fail "$name: both files have the collection's START_TIME" "the same value" "'$st1' and '$st2'"
	fi
	check "$name: row times strictly increase across the two files" ok "$(times_increase $f.1 $f)"
	tot=$(stat_of total_snapshots $f)
	earlier=$(stat_of ksnapd_rows_in_earlier_files $f)
	taken=$(stat_of ksnap_snapshots_taken $f)
	lost=$(stat_of ksnap_snapshots_lost $f)
	info "$name: $r1 + $r2 rows, STATS total_snapshots $tot, in earlier files $earlier, taken $taken, lost $lost"
	check "$name: rows of both files == STATS total_snapshots" "$tot" "$((r1 + r2))"
	check "$name: rows of the old file == STATS ksnapd_rows_in_earlier_files" "$earlier" "$r1"
	check "$name: rows of both files == ksnap_snapshots_taken - lost" "$((${taken:-0} - ${lost:-0}))" "$((r1 + r2))"
	# Each file alone: the new one is a whole stream; the old one lacks
	# STATS, which a lossy file's matching checksum shows was meant.
	verify $name-new $f 0
	verify $name-old $f.1 $want_old
}

rotate rotate /out/rot.tsv 1
check "rotate: ksnap-verify says the old plain file lacks STATS, not its head" "1 0" \
	"$(grep -c '^missing: STATS line' /out/rotate-old.verify) $(grep -c -e '^missing: START_TIME' -e '^missing: column header' -e '^missing: META' /out/rotate-old.verify)"
rotate rotate-lossy /out/rot.log 0 --lossy
check "rotate-lossy: the old file ends with its own ADLER32 line" yes \
	"$(grep -v '^$' /out/rot.log.1 | tail -n 1 | grep -q "^${PREFIX}ADLER32	0x" && echo yes || echo no)"
check "rotate-lossy: ksnap-verify says the old file was ended without STATS on purpose" 1 \
	"$(grep -c 'no STATS line, but the whole-stream checksum matches' /out/rotate-lossy-old.verify)"

# --- 4. start/stop/start while ksnapd runs: two files ---------------------------

if load; then
	rm -f /out/ss.tsv /out/ss.tsv.2 /out/ss.tsv.3
	ksnapd -o /out/ss.tsv 2> /out/ss.err &
	kpid=$!
	wait_attached
	check "restart: first start" ok "$(enable 1)"
	workload
	check "restart: first stop" ok "$(enable 0)"
	start_retry
	check "restart: second start (EBUSY retried until ksnapd wrote the first)" ok "$started"
	workload
	check "restart: second stop" ok "$(enable 0)"
	# Wait for the second file's STATS, then end ksnapd.
	wait_stats /out/ss.tsv.2
	check "restart: ksnapd still runs after two collections" yes "$(kill -0 $kpid 2>/dev/null && echo yes || echo no)"
	kill -TERM $kpid
	wait_pid $kpid $WAIT_S
	check "restart: ksnapd exits 0 on SIGTERM while waiting" 0 $?
	for f in /out/ss.tsv /out/ss.tsv.2; do
		b=${f#/out/}
		check "restart: $b has 2 META, START_TIME, header and STATS once" "2 1 1 1" \
			"$(count_of META $f) $(count_of START_TIME $f) $(count_of 'Time (ns)' $f) $(count_of STATS $f)"
		verify $b $f 0
		collection_rows restart-$b $f
	done
	check "restart: no third file" no "$([ -e /out/ss.tsv.3 ] && echo yes || echo no)"
	s1=$(sed -n 's/^START_TIME	//p' /out/ss.tsv) s2=$(sed -n 's/^START_TIME	//p' /out/ss.tsv.2)
	if [ -n "$s1" ] && [ -n "$s2" ] && [ "$s1" != "$s2" ]; then
		pass "restart: the two files have different START_TIMEs"
	else
		fail "restart: the two files have different START_TIMEs" "two different values" "'$s1' and '$s2'"
	fi
	check "restart: ksnapd said where each collection went" 2 "$(grep -c 'collection [0-9]*: writing /out/ss.tsv' /out/ss.err)"
else
	fail "restart: module loads" "modprobe status 0" "failure"
fi

# --- 4b. started and stopped before ksnapd notices -------------------------------
# echo 1; echo 0 in a row: ksnapd may first see the collection stopped.  It
# must still write it and hand it back, or the module refuses every later
# start (EBUSY) and poll() never sleeps (the unread records).


if load; then
	rm -f /out/quick.tsv /out/quick.tsv.*
	ksnapd -o /out/quick.tsv 2> /out/quick.err &
	kpid=$!
	wait_attached
	i=1
	# Held by SIGSTOP, ksnapd sees the start and the stop at once.
	while [ $i -le 3 ]; do
		kill -STOP $kpid
		a=$(enable 1) b=$(enable 0)
		kill -CONT $kpid
		check "quick: start $i and stop while ksnapd is held" "ok ok" "$a $b"
		f=/out/quick.tsv
		[ $i -gt 1 ] && f=/out/quick.tsv.$i
		wait_stats $f
		check "quick: ksnapd wrote collection $i, which it never saw running ($f)" "1 1" \
			"$(count_of START_TIME $f 2>/dev/null) $(count_of STATS $f 2>/dev/null)"
		i=$((i + 1))
	done
	# Back to back, ksnapd free to run: no start refused for good.
	while [ $i -le 6 ]; do
		start_retry
		a=$started b=$(enable 0)
		check "quick: start $i (EBUSY retried until the previous is written) and stop" "ok ok" "$a $b"
		i=$((i + 1))
	done
	wait_stats /out/quick.tsv.6
	# Asleep in poll: done with collection 6 (it marks it done before it
	# polls again), waiting for the next.
	check_asleep "quick: ksnapd sleeps while waiting (poll does not spin)" $kpid
	check "quick: a later start is accepted at once (not EBUSY)" ok "$(enable 1)"
	workload
	check "quick: and stopped" ok "$(enable 0)"
	wait_stats /out/quick.tsv.7
	kill -TERM $kpid
	wait_pid $kpid $WAIT_S
	check "quick: ksnapd exits 0 on SIGTERM" 0 $?
	for f in /out/quick.tsv /out/quick.tsv.2 /out/quick.tsv.3 /out/quick.tsv.4 \
		 /out/quick.tsv.5 /out/quick.tsv.6 /out/quick.tsv.7; do
		b=${f#/out/}
		verify $b $f 0
		r=$(rows $f)
		taken=$(stat_of ksnap_snapshots_taken $f)
		lost=$(stat_of ksnap_snapshots_lost $f)
		check "quick: $b: rows == STATS total_snapshots == taken - lost" "$r $r" \
			"$(stat_of total_snapshots $f) $((${taken:-0} - ${lost:-0}))"
	done
	check "quick: no eighth file" no "$([ -e /out/quick.tsv.8 ] && echo yes || echo no)"
else
	fail "quick: module loads" "modprobe status 0" "failure"
fi

# --- 5. --start --stop-on-exit and SIGTERM ------------------------------------

if load; then
	ksnapd --once --start --stop-on-exit -o /out/soe.tsv 2> /out/soe.err &
	kpid=$!
	wait_attached
	workload
	wait_rows /out/soe.tsv 100
	kill -TERM $kpid
	wait_pid $kpid $WAIT_S
	check "stop-on-exit: ksnapd exits 0 on SIGTERM" 0 $?
	check "stop-on-exit: enable reads 0 afterwards" 0 "$(cat $KSNAP_SYS/enable)"
	verify soe /out/soe.tsv 0
	collection_rows stop-on-exit /out/soe.tsv 100
	# STATS was written after the stop: the module took nothing after it.
	check "stop-on-exit: STATS ksnap_snapshots_taken is the kernel's final count" \
		"$(ksnap_stat taken)" "$(stat_of ksnap_snapshots_taken /out/soe.tsv)"
else
	fail "stop-on-exit: module loads" "modprobe status 0" "failure"
fi

# --- 5a. --start --stop-on-exit and SIGKILL -----------------------------------
# ksnapd starts through the device (KSNAP_IOC_ENABLE) and asks the module
# to stop when its session ends: a killed ksnapd leaves no collection
# running (a pod's container is SIGKILLed).

# enable_is VALUE: the enable attribute reads VALUE.
enable_is() {
	_e=$(cat $KSNAP_SYS/enable)
	echo "enable reads $_e (want $1)"
	[ "$_e" = "$1" ]
}

# With cgroup patterns (a DaemonSet's case) ksnapd starts before it opens
# the device; it still asks for the stop when its session ends.
mkdir -p $CG/soe-a $CG/soe-b
for how in plain patterns; do
	case $how in
	plain) set -- ;;
	patterns) set -- cgroups=/soe-* ;;
	esac
	if ! load "$@"; then
		fail "sigkill ($how): module loads" "modprobe status 0" "failure"
		continue
	fi
	rm -f /out/kill.tsv*
	ksnapd --start --stop-on-exit -o /out/kill.tsv 2> /out/kill.err &
	kpid=$!
	wait_rows /out/kill.tsv 10
	check "sigkill ($how): ksnapd --start started the collection" 1 "$(cat $KSNAP_SYS/enable)"
	kill -KILL $kpid
	wait_pid $kpid $WAIT_S
	check_wait "sigkill ($how): the module stops the collection when the killed ksnapd's session ends" \
		$WAIT_S enable_is 0
	check "sigkill ($how): a new reader can open the device" ok \
		"$(guestprobe open)"
done
unload
rmdir $CG/soe-a $CG/soe-b

# --- 5b. SIGINT: drain, STATS, exit 0; the collection keeps running -----------

if load; then
	rm -f /out/sigint.log
	ksnapd --once --lossy -o /out/sigint.log 2> /out/sigint.err &
	kpid=$!
	wait_attached
	check "sigint: writing 1 to enable starts a collection" ok "$(enable 1)"
	workload
	wait_rows /out/sigint.log 100
	kill -INT $kpid
	wait_pid $kpid $WAIT_S
	check "sigint: ksnapd exits 0 on SIGINT" 0 $?
	check "sigint: without --stop-on-exit the collection keeps running" 1 "$(cat $KSNAP_SYS/enable)"
	check "sigint: one STATS line" 1 "$(count_of 'STATS	' /out/sigint.log)"
	check "sigint: the last line is ADLER32" yes \
		"$(grep -v '^$' /out/sigint.log | tail -n 1 | grep -q "^${PREFIX}ADLER32	0x" && echo yes || echo no)"
	verify sigint /out/sigint.log 0
	r=$(rows /out/sigint.log)
	if [ "${r:-0}" -ge 100 ]; then pass "sigint: ksnapd wrote the rows ($r >= the 100 it had written before SIGINT)"; else fail "sigint: ksnapd wrote the rows" ">= 100 (there before SIGINT)" "'$r'"; fi
	check "sigint: rows == STATS total_snapshots (the ring drained)" "$(stat_of total_snapshots /out/sigint.log)" "$r"
	check "sigint: stop" ok "$(enable 0)"
else
	fail "sigint: module loads" "modprobe status 0" "failure"
fi

# --- 6. --load=PARAMS ---------------------------------------------------------

unload
check "load: the module is not loaded before" no "$(module_loaded && echo yes || echo no)"
ksnapd --once --load=period_us=500 -o /out/load.tsv 2> /out/load.err &
kpid=$!
wait_for "ksnapd loaded the module: /dev/ksnap" $WAIT_S test -c /dev/ksnap
check "load: lsmod shows ksnap" 1 "$(lsmod | grep -c '^ksnap ')"
check "load: /sys/module/ksnap/parameters/period_us is 500" 500 "$(cat /sys/module/ksnap/parameters/period_us 2>&1)"
check "load: period_us is 500" 500 "$(cat $KSNAP_SYS/period_us 2>&1)"
wait_attached
check "load: writing 1 to enable starts a collection" ok "$(enable 1)"
wait_rows /out/load.tsv 10
check "load: writing 0 to enable stops it" ok "$(enable 0)"
wait_pid $kpid $WAIT_S
check "load: ksnapd --load exits 0 after the collection" 0 $?
check "load: STATS collection_rate_nanos is 500000" 500000 "$(stat_of collection_rate_nanos /out/load.tsv)"
verify load /out/load.tsv 0
# Loaded already: other parameters cannot be applied, and ksnapd says so.
ksnapd --load=period_us=700 --no-wait --device /dev/ksnap-none 2> /out/load2.err
check "load: already loaded, --load=period_us=700 warns naming the parameters" 1 \
	"$(grep -c '^ksnapd: --load: warning: ksnap is already loaded: .*period_us=700 not applied' /out/load2.err)"
check "load: the module keeps period_us=500" 500 "$(cat /sys/module/ksnap/parameters/period_us 2>&1)"

# --- 7. missing device: ksnapd waits for it --------------------------------------

unload
# ... but an -o it cannot write is said at once, not when a collection starts.
ksnapd -o /out/no-such-dir/x.tsv 2> /out/nodir.err &
kpid=$!
# "At once": without waiting for the device or a collection (none comes).
wait_pid $kpid $WAIT_S
check "nodir: ksnapd exits 1 at once on an -o directory that does not exist" 1 $?
check "nodir: and names the directory" 1 \
	"$(grep -c '^ksnapd: -o /out/no-such-dir/x.tsv: /out/no-such-dir: cannot create the output files there: No such file or directory' /out/nodir.err)"
ksnapd --once -o /out/wait.tsv 2> /out/wait.err &
kpid=$!
check_wait "wait: ksnapd says it is waiting for /dev/ksnap" $WAIT_S \
	grep '/dev/ksnap: .*waiting for it, next try in' /out/wait.err
check "wait: ksnapd is still running without the device" yes "$(kill -0 $kpid 2>/dev/null && echo yes || echo no)"
if modprobe ksnap metrics=$METRICS period_us=$PERIOD_US; then
	# Its next try is at most 1.69 s away: it attaches then.
	wait_attached
	check "wait: writing 1 to enable starts a collection" ok "$(enable 1)"
	workload
	wait_rows /out/wait.tsv 100
	check "wait: writing 0 to enable stops it" ok "$(enable 0)"
	wait_pid $kpid $WAIT_S
	check "wait: ksnapd attaches once the module is loaded, exits 0" 0 $?
	verify wait /out/wait.tsv 0
	collection_rows wait /out/wait.tsv 100

	# --- 7b. --start with patterns waits for a busy device, then starts --------
	# A second ksnapd (a pod beside the host's service) must not start the
	# collection of the reader that holds the device.
	mkdir -p $CG/busy1
	check "busy: a cgroup pattern written" ok "$(guestprobe write $KSNAP_SYS/cgroups '/busy*')"
	ksnapd --once -o /out/busy-holder.tsv 2> /out/busy-holder.err &
	hpid=$!
	wait_attached
	ksnapd --start --once -o /out/busy.tsv 2> /out/busy.err &
	kpid=$!
	check_wait "busy: the second ksnapd says another reader holds the device" $WAIT_S \
		grep 'another reader holds it' /out/busy.err
	check "busy: it started no collection for the reader that holds it" 0 "$(cat $KSNAP_SYS/enable)"
	kill -TERM $hpid
	wait_pid $hpid $WAIT_S
	check_wait "busy: the holder gone, the waiting ksnapd starts its collection" $WAIT_S \
		stat_is state running
	workload
	wait_rows /out/busy.tsv 100
	check "busy: writing 0 to enable stops it" ok "$(enable 0)"
	wait_pid $kpid $WAIT_S
	check "busy: the waiting ksnapd exits 0" 0 $?
	check "busy: the holder wrote no row" 0 \
		"$(cat /out/busy-holder.tsv 2>/dev/null | grep -c "^\(GVISOR_METRICS	\)\{0,1\}[0-9]")"
	verify busy /out/busy.tsv 0
	check "busy: the cgroups knob cleared" ok "$(guestprobe write $KSNAP_SYS/cgroups '')"
	rmdir $CG/busy1
else
	fail "wait: module loads" "modprobe status 0" "failure"
	kill -TERM $kpid
	wait_pid $kpid $WAIT_S
fi

# --- 8. wake_ms: the reader is woken once per wake_ms of records ----------------

# wakeups_within NAME MS: after a collection at PERIOD_US read by ksnapd, the
# kernel woke the reader when the unread records reached the mark (MS of
# records): at most once per mark of records taken (and two more), since
# the unread count must come back below the mark between two wake-ups; and
# at least once when the collection took a mark's worth, if the mark is at
# most half a second of snapshots (ksnapd also wakes once a second on its
# own and drains the ring, and a mark of snapshots takes longer than its
# time when the timer misses periods: a mark near a second may never be
# reached).
# How often a drain came in between depends on the machine's speed: not
# asserted.
# Each MS is above the one in force before it (the default 100, then the
# load's), by enough that a mark left at the old value would wake the
# reader about twice as often as the bound allows.
wakeups_within() {
	taken=$(ksnap_stat taken)
	wakes=$(ksnap_stat wakeups)
	mark=$(($2 * 1000 / PERIOD_US))
	info "$1: taken $taken, wakeups $wakes, mark $mark records"
	lo=0 hi=$((taken / mark + 2))
	[ "${taken:-0}" -ge $mark ] && [ $(($2 * 2)) -le 1000 ] && lo=1
	if [ "${wakes:-x}" -ge $lo ] 2>/dev/null && [ "$wakes" -le $hi ]; then
		pass "$1: wake-ups $wakes within $lo..$hi"
	else
		fail "$1: wake-ups within $lo..$hi" "$lo..$hi" "'$wakes'"
	fi
}

# WAKE_TAKEN: the snapshots of each wake_ms collection: 12 marks of the
# load's wake_ms, 3.75 of the knob's.
WAKE_TAKEN=3000

# wake_run NAME [busy]: ksnapd reads a collection of WAKE_TAKEN snapshots;
# with busy, a wake_ms write while it runs is refused.
wake_run() {
	ksnapd --once -o /out/$1.tsv 2> /out/$1.err &
	kpid=$!
	wait_attached
	start_retry
	check "$1: writing 1 to enable starts a collection" ok "$started"
	[ "${2:-}" = busy ] &&
		check "$1: a wake_ms write while running is EBUSY" EBUSY \
			"$(guestprobe write $KSNAP_SYS/wake_ms 100)"
	wait_for "$1: $WAKE_TAKEN snapshots taken" $WAIT_S taken_at_least $WAKE_TAKEN
	check "$1: writing 0 to enable stops it" ok "$(enable 0)"
	wait_pid $kpid 30
	check "$1: ksnapd exits 0" 0 $?
}

# 250 and 800 ms: above the default (100), the knob's above the load's.
if load wake_ms=250; then
	check "wake_ms: the parameter reads back" 250 "$(cat $KSNAP_SYS/wake_ms)"
	wake_run wake250
	wakeups_within wake250 250
	check "wake_ms: 0 is EINVAL" EINVAL "$(guestprobe write $KSNAP_SYS/wake_ms 0)"
	check "wake_ms: 10001 is EINVAL" EINVAL "$(guestprobe write $KSNAP_SYS/wake_ms 10001)"
	check "wake_ms: 800 is taken while stopped" ok "$(guestprobe write $KSNAP_SYS/wake_ms 800)"
	check "wake_ms: reads 800" 800 "$(cat $KSNAP_SYS/wake_ms)"
	wake_run wake800 busy
	check "wake_ms: still 800 after the refused write" 800 "$(cat $KSNAP_SYS/wake_ms)"
	wakeups_within wake800 800
	unload
else
	fail "wake_ms: module loads with wake_ms=250" "modprobe status 0" "failure"
fi

# --- 9. a cgroup path of about 300 bytes, its column read by ioctl ----------------
# A Kubernetes container's scope under the systemd cgroup driver, and a
# cgroup below it: longer than a 160-byte field would hold.
pod=kubepods-burstable-pod0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0.slice
ctr=cri-containerd-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope
longp=/kubepods.slice/kubepods-burstable.slice/$pod/$ctr/workload-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope
d=$CG
for part in $(echo "$longp" | tr '/' ' '); do
	echo +memory > $d/cgroup.subtree_control 2>/dev/null
	d=$d/$part
	mkdir -p $d
done
ge "long-path: the path is longer than 290 bytes" "${#longp}" 290
if load "metrics=pgfault,memory.current" "cgroups=$longp"; then
	check "long-path: the cgroups knob reads the path back whole" "$longp" "$(cat $KSNAP_SYS/cgroups)"
	check "long-path: KSNAP_IOC_COLUMN gives column 1 of the current set whole" \
		"ok|memory.current|cgroup|$longp" \
		"$(guestprobe column cur 1 | sed -n '1p;3,5p' | tr '\n' '|' | sed 's/|$//')"
	check "long-path: an index past the set is ENOENT" ENOENT "$(guestprobe column cur 2)"
	check "long-path: a set that is not the current one is ESTALE" ESTALE "$(guestprobe column old 0)"
	check "long-path: a reserved field set is EINVAL" EINVAL "$(guestprobe column cur 0 dirty)"
	one_collection long-path /out/long.tsv 10
	check "long-path: the header names the column with the whole path" \
		"Time (ns)	pgfault	memory.current[$longp]" \
		"$(grep '^Time (ns)' /out/long.tsv)"
	verify long /out/long.tsv 0
	unload
else
	fail "long-path: module loads with a cgroup of ${#longp} bytes" "modprobe status 0" "failure"
fi
d=$CG$longp
while [ "$d" != "$CG" ]; do
	rmdir "$d" 2>/dev/null
	d=${d%/*}
done

# --- 10. more columns than the control region once held ------------------------
mkdir -p $CG/many
echo +memory > $CG/many/cgroup.subtree_control
seq 1 300 | sed "s|^|$CG/many/c|" | xargs mkdir -p
many=$(seq 1 300 | sed 's|^|/many/c|' | paste -s -d,)
if load period_us=100000; then
	check "many-columns: 300 cgroups are taken" ok \
		"$(guestprobe write $KSNAP_SYS/cgroups "$many")"
	check "many-columns: memory.current for each is taken" ok \
		"$(guestprobe write $KSNAP_SYS/metrics memory.current)"
	check "many-columns: the last column through the device" \
		"ok|memory.current|cgroup|/many/c300" \
		"$(guestprobe column cur 299 | sed -n '1p;3,5p' | tr '\n' '|' | sed 's/|$//')"
	one_collection many-columns /out/many.tsv 3
	check "many-columns: the header has the time and 300 columns" 301 \
		"$(grep '^Time (ns)' /out/many.tsv | awk -F '\t' '{ print NF }')"
	check "many-columns: the last one is /many/c300's" "memory.current[/many/c300]" \
		"$(grep '^Time (ns)' /out/many.tsv | awk -F '\t' '{ print $NF }')"
	verify many /out/many.tsv 0
	unload
else
	fail "many-columns: module loads" "modprobe status 0" "failure"
fi
seq 1 300 | sed "s|^|$CG/many/c|" | xargs rmdir 2>/dev/null
rmdir $CG/many 2>/dev/null

finish
