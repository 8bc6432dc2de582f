# SPDX-License-Identifier: MIT
# Guest half of the CPU-fold test.  When a CPU goes offline, mm folds its
# VM events into a live CPU: it adds each one to the live CPU, then zeroes
# it, item by item, under no lock the module can take.  A snapshot in that
# window may count some events twice.  The promise kept: a VM-event column
# never steps back (its last value is held), and a CPU's own VM-event
# column ("pgfault[1]") keeps what the CPU held while it is offline and
# adds its count once it is back, never falling to 0.  The records taken
# in the fold window and while a per-CPU column's CPU is offline carry
# KSNAP_REC_CPU_FOLD (4) and KSNAP_REC_CPU_OFFLINE (8).
#
# CPU 1 goes offline and online CYCLES times (6; 40 in the long version,
# KSNAP_TEST_LONG=1, make check-all) while every VM event is
# sampled at 100 us (pgfault per CPU, the others summed).  Without the
# hold, pgfault[1] fell to 0 in 3 runs of 3; the sums' race with the fold
# is rare under emulation: in those 3 runs of 40 cycles no sum stepped
# back, so that part of this test passes by chance on such a module.  The
# fold window itself shows: about 400 records a run carry CPU_FOLD.
# The hold makes "never steps back" and "never falls to 0" pass on a
# module without the offline base too; what tells them apart is a hog
# pinned to CPU 1 after its return: its faults must show in pgfault[1]
# (a module without vm_offset: 'rose by 0'), and the records written
# after the return must not be flagged CPU_OFFLINE (a module that leaves
# CPU 1 out of its live set: 'record 13900 flags 8').
# guest: --smp 8 --append maxcpus=2
TEST=fold
. /guest/tests/lib.sh
S=$KSNAP_SYS
CPU1=/sys/devices/system/cpu/cpu1/online
if [ "${KSNAP_TEST_LONG:-}" = 1 ]; then
	CYCLES=${CYCLES:-40}
else
	CYCLES=${CYCLES:-6}
fi
WAIT_S=${WAIT_S:-60}

vm=$(ksnapd --list-metrics 2>/dev/null | awk -F '\t' '$5 == "cpu" && $6 ~ /^VM event/ && $1 != "pgfault" { print $1 }' |
	head -n 200 | tr '\n' ',' | sed 's/,$//')
# The catalogue is read through the module: load it first.
if [ -z "$vm" ]; then
	modprobe ksnap
	vm=$(ksnapd --list-metrics | awk -F '\t' '$5 == "cpu" && $6 ~ /^VM event/ && $1 != "pgfault" { print $1 }' |
		head -n 200 | tr '\n' ',' | sed 's/,$//')
	unload
fi
n=$(printf '%s' "$vm" | tr ',' '\n' | grep -c .)
info "fold: $n VM events, CPU 1 offline and online $CYCLES times"
# The list is longer than a module parameter may be (1 KiB): the knob.
if ! modprobe ksnap period_us=100 overflow=drop; then
	fail "fold: the module loads" "status 0" "failure"
	finish
	exit
fi
# The parameters took: a fresh load, whose seq starts at 0 (below).
check "fold: loaded with period_us=100" 100 "$(cat $S/period_us)"
check "fold: every VM event configured through the metrics knob" ok \
	"$(guestprobe write $S/metrics "$vm,pgfault[1],pgfault[0]")"
guestprobe records 600 > /out/fold.records 2> /out/fold.records.err &
rpid=$!
wait_attached
check "fold: start" ok "$(guestprobe write $S/enable 1)"
wait_samples 100
# CPU 1 holds more page faults when it first goes than one hog makes
# (five hogs pinned to it; a hog is some hundreds, most of them its exec):
# a module that loses what CPU 1 held restarts the column below what it
# showed, and the hold keeps it flat through the hog after CPU 1's return.
for i in 1 2 3 4 5; do
	taskset -c 1 memhog 8 0 > /dev/null 2>&1
done
i=0 bad=0
while [ $i -lt "$CYCLES" ]; do
	guestprobe write $CPU1 0 > /dev/null || bad=$((bad + 1))
	# page faults and allocations on CPU 0 while CPU 1 is away
	memhog 1 0 > /dev/null 2>&1
	guestprobe write $CPU1 1 > /dev/null || bad=$((bad + 1))
	memhog 1 0 > /dev/null 2>&1
	i=$((i + 1))
done
check "fold: CPU 1 went offline and online $CYCLES times" 0 "$bad"
# A record's seq is its head position: snapshots taken less those lost to
# a full ring (drop mode), from 0 on a fresh load.  Lost read first: the
# figure is head or above, so every record from that seq on was taken
# with CPU 1 online.  The reader may lag the timer: while the ring is
# full, snapshots are lost and none is written, so the record at
# back_seq is waited for before the hog (ksnap_written reads taken
# first: at most head), or the first record after the return could be
# one taken after the hog, and the rise 0.
back_lost=$(ksnap_stat lost)
back_seq=$(( $(ksnap_stat taken) - back_lost ))
wait_for "a record written after CPU 1's return (seq $back_seq)" $WAIT_S \
	written_at_least $(( back_seq + 1 ))
# Page faults on CPU 1 once it is back: its own column counts them.  A
# module that reads CPU 1 no more, or lost what CPU 1 held before it
# went, holds the column still (the no-step-back hold masks a count
# restarted from 0).
taskset -c 1 memhog 8 0 > /out/fold.hog 2>&1
check_st "fold: the hog pinned to CPU 1 ran" 0 $? /out/fold.hog
hog_lost=$(ksnap_stat lost)
hog_seq=$(( $(ksnap_stat taken) - hog_lost ))
wait_for "100 records written after the hog on CPU 1 (seq >= $hog_seq)" $WAIT_S \
	written_at_least $(( hog_seq + 100 ))
check "fold: stop" ok "$(guestprobe write $S/enable 0)"
wait_pid $rpid $WAIT_S
check "fold: the reader ends after the stop" 0 $?

# Records: "seq time flags value...", the last two pgfault[1], pgfault[0].
rec=$(grep -c '^[0-9]' /out/fold.records)
info "fold: $rec records"
back=$(awk '/^[0-9]/ {
	for (i = 4; i <= NF; i++) {
		if (n && $i + 0 < prev[i] + 0) { print "column " i - 3 " steps back at record " $1 ": " prev[i] " -> " $i; exit }
		prev[i] = $i
	}
	n++ }' /out/fold.records)
check "fold: no VM-event column ever steps back over $CYCLES cycles" "" "$back"
c1=$(awk '/^[0-9]/ { print $(NF - 1) }' /out/fold.records)
check "fold: pgfault[1] never falls to 0 once it counted" "" \
	"$(printf '%s\n' "$c1" | awk '$1 > 0 { seen = 1 } seen && $1 == 0 { print "0 after " last; exit } { last = $1 }')"
offline=$(awk '/^[0-9]/ && int($3 / 8) % 2 == 1' /out/fold.records | wc -l)
folding=$(awk '/^[0-9]/ && int($3 / 4) % 2 == 1' /out/fold.records | wc -l)
info "fold: $offline records flagged CPU_OFFLINE, $folding flagged CPU_FOLD"
check "fold: records taken while CPU 1 is offline are flagged CPU_OFFLINE" yes \
	"$([ "$offline" -gt 0 ] && echo yes || echo no)"
rise=$(awk -v s="$back_seq" -v h="$hog_seq" '/^[0-9]/ && $1 >= s {
		if (first == "") first = $(NF - 1)
		if ($1 >= h) last = $(NF - 1) }
	END { print (first == "" || last == "") ? "none" : last - first }' /out/fold.records)
info "fold: pgfault[1] rose by $rise from CPU 1's return to after the hog on it"
case $rise in none|-*|0)
	info "fold: records from CPU 1's return (seq $back_seq; after the hog: $hog_seq): seq flags pgfault[1], the first 3 and the last:"
	show "$(awk -v s="$back_seq" '/^[0-9]/ && $1 >= s { print $1, $3, $(NF - 1) }' /out/fold.records |
		sed -n '1,3p;$p')"
	info "fold: knobs: period_us $(cat $S/period_us 2>&1), overflow $(cat $S/overflow 2>&1)" ;;
esac
check "fold: pgfault[1] counts the faults of a hog pinned to CPU 1 once it is back" yes \
	"$(case $rise in none|-*|0) echo "no ($rise)" ;; *) echo yes ;; esac)"
after=$(awk -v s="$back_seq" '/^[0-9]/ && $1 >= s' /out/fold.records)
check "fold: the reader read records written after CPU 1 came back" yes \
	"$([ -n "$after" ] && echo yes || echo no)"
check "fold: no record written after CPU 1 came back is flagged CPU_OFFLINE" "" \
	"$(printf '%s\n' "$after" | awk 'int($3 / 8) % 2 == 1 { print "record " $1 " flags " $3; exit }')"
finish
