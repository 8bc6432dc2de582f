# SPDX-License-Identifier: MIT
# Guest half of the interrupts-off test, on a kernel with the irqsoff
# latency tracer (the PREEMPT_RT debug kernel, scripts/kconfig/rt.config)
# and 64 possible CPUs of which 2 are online.  The module's process-context
# work over the CPUs that are not live (the offline CPUs' shares of each
# summed column, at a start and at every set change) must run with
# interrupts on: a loop over 62 offline CPUs x every per-CPU column with
# them off would be the longest section the kernel has.  The sections
# ksnap keeps interrupts off for by design each read one snapshot at most:
# the timer's read (hard interrupt), a calibration read and a cgroup's
# price at a start, the last snapshot at a stop, a CPU's share at hotplug.
# Two phases, the tracer's maximum cleared before each:
#   starts       a collection of 512 cgroups' cpu.stat.usage_self (a
#                per-CPU read) and the per-CPU system counters at 100 ms,
#                started and stopped 4 times;
#   set changes  one running collection while cgroups come and go under
#                its pattern, 8 set changes.
# Checked after each: the tracer saw a section and its stack; the longest
# section, if it ended in a function that walks the CPUs not live (its
# stack's innermost ksnap frame above any interrupt entry), is no longer
# than 2 of the phase's longest reads (stats/read_max_ns).  With 512
# cgroups such a walk with interrupts off is longer than anything else
# the guest does with them off, and 3 to 4 reads long (a read has a fixed
# cost per cgroup beside its 2 CPUs): it fails.  The longest section,
# where it ended, its ksnap frame and the longest read are printed
# ("# irqsoff: ...").
# guest: --smp 64 --append maxcpus=2
# guest-alone: 64 possible CPUs, 2 online; a group's options would differ
TEST=irqsoff
. /guest/tests/lib.sh
WAIT_S=120
S=$KSNAP_SYS
T=/sys/kernel/tracing
D=/ksirq
N=512
info "irqsoff: $N cgroups on $(nproc) online CPUs of $(cat /sys/devices/system/cpu/possible)"

[ -d $T/instances ] || mount -t tracefs tracefs $T 2>/dev/null
if ! grep -qw irqsoff $T/available_tracers 2>/dev/null; then
	fail "the kernel has the irqsoff tracer" "irqsoff in $T/available_tracers" \
		"'$(cat $T/available_tracers 2>/dev/null)' (CONFIG_IRQSOFF_TRACER)"
	finish
	exit
fi

unload
mkdir -p $CG$D
seq 0 $((N - 1)) | sed "s|^|$CG$D/c|" | xargs mkdir
modprobe ksnap "metrics=cpu.stat.usage_self,stat.intr,stat.softirq,cpu.user,cpu.system" \
	"cgroups=$D/*" period_us=100000 discover_ms=100
check "load: $N cgroups' per-CPU usage and the per-CPU system counters" 0 $?

# The console's interrupts-off printing is not what this measures.
read -r printk_was _ < /proc/sys/kernel/printk
echo 1 > /proc/sys/kernel/printk
echo irqsoff > $T/current_tracer
echo 1 > $T/options/sym-offset
[ -f $T/options/function-trace ] && echo 0 > $T/options/function-trace
echo 1 > $T/tracing_on

# The functions that walk the CPUs not live, in process context (a start's
# and a set change's offline shares), and those they may be inlined into.
WALKERS=" ksnap_cpus_start ksnap_install_move ksnap_install_running ksnap_install "

tracer_reset() {
	# The buffer first: a section recorded between the two writes would
	# otherwise leave a maximum with no trace.
	: > $T/trace
	echo 0 > $T/tracing_max_latency
}

# longest PHASE READ_NS: check the tracer's longest section since
# tracer_reset against READ_NS, the longest read of the phase.  The trace
# shows the section's ends and the stack where it ended (with sym-offset,
# a module's function as "name+0x../0x.. [ksnap]"); the last stack is the
# section's.  Below an interrupt's entry (asm_*) the stack is the code the
# interrupt came in: not where interrupts were turned off.
longest() {
	_f=/out/irqsoff-$1.txt
	cat $T/trace > "$_f"
	_us=$(sed -n 's/^# latency: \([0-9]*\) us.*/\1/p' "$_f" | head -n 1)
	_end=$(sed -n 's/^#  *=> ended at: *//p' "$_f" | head -n 1)
	_start=$(sed -n 's/^#  *=> started at: *//p' "$_f" | head -n 1)
	_fn=$(awk '/<stack trace>/ { fn = ""; d = 0; next }
		!d && /^ => asm_/ { d = 1 }
		!d && fn == "" && / \[ksnap\]$/ { fn = $2; sub(/[.+].*/, "", fn) }
		END { print fn }' "$_f")
	if [ -z "$_fn" ]; then
		case "$_end" in
		*" [ksnap]") _fn=${_end%%[.+]*} ;;
		esac
	fi
	info "irqsoff: $1: the longest section ${_us:-?} us, from ${_start:-?} to ${_end:-?}, ksnap frame ${_fn:-none}; ksnap's longest read $(($2 / 1000)) us"
	if [ "${_us:-0}" -gt 0 ] && grep -q '<stack trace>' "$_f" &&
		grep -q '^ => .*+0x' "$_f"; then
		pass "$1: the tracer saw a section with interrupts off, and its stack"
	else
		fail "$1: the tracer saw a section with interrupts off, and its stack" \
			"a latency above 0 us, a <stack trace> with offsets" \
			"latency '${_us:-none}' ($_f)"
	fi
	case "$WALKERS" in
	*" $_fn "*) _walk=$_fn ;;
	*) _walk= ;;
	esac
	# A walk with interrupts off reads 31 times the CPUs a read does,
	# cgroup by cgroup; a short section in a walker (its lock, a cancel)
	# stretched by a busy host is not 2 reads.
	if [ -z "$_walk" ] || [ $((_us * 1000)) -le $((2 * $2)) ]; then
		pass "$1: a walk over the CPUs not live is not the longest section with interrupts off"
	else
		fail "$1: a walk over the CPUs not live is not the longest section with interrupts off" \
			"none, or one no longer than 2 reads ($2 ns each, stats/read_max_ns)" \
			"${_us} us with interrupts off, ended in $_walk ($_f)"
	fi
}

# Starts: the offline CPUs' shares of every summed column are taken.
# Each start zeroes stats/read_max_ns: the phase's longest is kept here.
tracer_reset
i=0 read_ns=0
while [ $i -lt 4 ]; do
	r=$(guestprobe write $S/enable 1)
	[ "$r" = ok ] || { fail "start $i" ok "'$r'"; break; }
	wait_for "start $i: 10 snapshots taken" $WAIT_S taken_at_least 10 || break
	guestprobe write $S/enable 0 > /dev/null
	r=$(ksnap_stat read_max_ns)
	[ "${r:-0}" -le $read_ns ] || read_ns=$r
	i=$((i + 1))
done
longest starts $read_ns

# Set changes: each takes the new set's offline shares.
check "start for the set changes" ok "$(guestprobe write $S/enable 1)"
tracer_reset
sc0=$(ksnap_stat set_changes)
changes_at_least() {
	_sc=$(ksnap_stat set_changes)
	echo "set changes ${_sc:-none} (want at least $1)"
	[ "${_sc:-0}" -ge "$1" ]
}
i=0
while [ $i -lt 4 ]; do
	mkdir $CG$D/n$i
	wait_for "cgroup n$i comes: a set change" $WAIT_S changes_at_least $((sc0 + 2 * i + 1)) || break
	rmdir $CG$D/n$i
	wait_for "cgroup n$i goes: a set change" $WAIT_S changes_at_least $((sc0 + 2 * i + 2)) || break
	i=$((i + 1))
done
longest "set changes" "$(ksnap_stat read_max_ns)"
check "the collection still runs" "running none" \
	"$(ksnap_stat state) $(ksnap_stat stop_reason)"
guestprobe write $S/enable 0 > /dev/null

echo nop > $T/current_tracer
echo 0 > $T/options/sym-offset
echo "$printk_was" > /proc/sys/kernel/printk
unload
rmdir $CG$D/n* 2>/dev/null
seq 0 $((N - 1)) | sed "s|^|$CG$D/c|" | xargs rmdir
rmdir $CG$D
finish
