# SPDX-License-Identifier: MIT
# Guest half of the test of cpu.stat.usage across CPU hotplug.  The
# sampler sums a leaf cgroup's live CPU time over the CPUs online at some
# time since the start, not the possible ones: a CPU that goes offline
# stays in the sum, so its time not yet flushed into cpu.stat is still
# counted (on 5.10 and since 6.16 only a read of cpu.stat flushes).
# Nothing may be counted twice when a flush takes it, and when the CPU
# comes back the sum must not jump.
#
# A spinner pinned to CPU 1 burns, CPU 1 goes offline (the spinner moves
# to CPU 0 and burns on), the spinner stops.  Asserted, each polled with a
# deadline:
#  - while CPU 1 is offline the column never reads more than the
#    spinner burned (a copy of CPU 1's unflushed part kept at its offline
#    and a flush that adds it again would read more), and, with nothing
#    reading cpu.stat, reaches it within a tenth (a sum over the online CPUs
#    alone missed CPU 1's unflushed part: on 7.3 'last seen: column
#    383211235, burned 629850931');
#  - after a read of cpu.stat (a flush), the column is the file's usage
#    within 1 ms;
#  - after CPU 1 is back, still the file's usage within 1 ms (a sampler
#    that kept the cgroup's learnt K across the change read CPU 1's whole
#    time twice for a sample, and held it: 'file 647822000, ours
#    1001031783: file - ours -353209783 ns');
#  - a clean kernel log (lib.sh).
# guest: --smp 8 --append maxcpus=2
TEST=cgcpus
. /guest/tests/lib.sh
WAIT_S=${WAIT_S:-60}
BURN_MS=${BURN_MS:-300}
W=/tmp/cgcpus
L=/kscgcpus/leaf
CPU1=/sys/devices/system/cpu/cpu1/online
mkdir -p $W $CG$L

unload
modprobe ksnap metrics=cpu.stat.usage cgroups=$L period_us=10000
check "module loads with cpu.stat.usage of $L" 0 $?
check "start" ok "$(guestprobe write $KSNAP_SYS/enable 1)"
ksnapd -o $W/s.tsv 2> $W/ksnapd.err &
kpid=$!
wait_attached
wait_rows $W/s.tsv 3

# col_last: the last row's cpu.stat.usage of the leaf.
col_last() { stream_last $W/s.tsv "cpu.stat.usage[$L]"; }
runtime() { proc_runtime "$1"; }
burned_at_least() { # PID MS
	_b=$(runtime "$1")
	echo "burned $_b ns (want $2 ms)"
	[ "$_b" -ge $(( $2 * 1000000 )) ]
}
# rows_after N: the stream has more than N rows.
row_count() { grep -c '^[0-9]' $W/s.tsv; }
rows_after() {
	_n=$(row_count)
	echo "rows $_n (want more than $1)"
	[ "$_n" -gt "$1" ]
}
# matches_file: the last row is the file's usage_usec (read now: a flush)
# within 1 ms and at most 1 us above it.  The row must be newer than the
# read, so this reads the file, waits for two rows, then compares.
matches_file() {
	_f=$(awk '$1 == "usage_usec" { print $2 * 1000 }' $CG$L/cpu.stat)
	_r=$(row_count)
	wait_for --quiet "rows after the read" $WAIT_S rows_after $((_r + 1))
	_o=$(col_last)
	_d=$((_f - _o))
	echo "file $_f, ours $_o: file - ours $_d ns"
	[ $_d -ge -1000 ] && [ $_d -le 1000000 ]
}

sh -c "echo \$\$ > $CG$L/cgroup.procs && exec taskset -c 1 sh -c 'while :; do :; done'" &
spin=$!
wait_for "the spinner burns $BURN_MS ms on CPU 1" $WAIT_S burned_at_least $spin $BURN_MS
echo 0 > $CPU1
check "CPU 1 offline" 0 "$(cat $CPU1)"
# It moved to CPU 0 and burns on.
wait_for "the spinner burns $((BURN_MS * 2)) ms in all" $WAIT_S burned_at_least $spin $((BURN_MS * 2))
kill -STOP $spin
wait_for "the spinner is stopped" $WAIT_S proc_state $spin T
T=$(runtime $spin)
r=$(row_count)
wait_for "two rows after the stop" $WAIT_S rows_after $((r + 1))
o=$(col_last)
ok=no
[ "$o" -le $((T + 1000000)) ] && ok=yes
check "CPU 1 offline: the column ($o ns) is at most the time burned ($T ns)" yes $ok
# Within a tenth and 1 ms, as cpufresh.sh: the spinner's schedstat also
# counts what its shell ran before it joined the cgroup (about 15 ms
# under emulation).
reaches_burned() {
	_o=$(col_last)
	echo "column $_o, burned $T"
	[ "$_o" -ge $((T - T / 10 - 1000000)) ]
}
check_wait "CPU 1 offline: the column reaches the time burned, nothing reading cpu.stat" \
	$WAIT_S reaches_burned
check_wait "CPU 1 offline: after a read of cpu.stat, the column is its usage" \
	$WAIT_S matches_file
echo 1 > $CPU1
check "CPU 1 online" 1 "$(cat $CPU1)"
check_wait "CPU 1 back: the column is still cpu.stat's usage" \
	$WAIT_S matches_file

echo 0 > $KSNAP_SYS/enable
kill $kpid
wait_pid $kpid $WAIT_S
cp $W/s.tsv /out/cgcpus.tsv
check "the stream verifies" 0 "$(ksnap-verify $W/s.tsv > $W/verify.out 2>&1; echo $?)"
kill -9 $spin 2>/dev/null
wait $spin 2>/dev/null
rmdir $CG$L $CG${L%/*} 2>/dev/null
finish
