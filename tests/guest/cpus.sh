# SPDX-License-Identifier: MIT
# Guest half of the CPU test: snapshots read the online CPUs only,
# sums stay exact across CPU hotplug, and the sampler runs on the CPU the
# operator chose.  The guest has more possible CPUs than online ones
# (tests/run-guest-tests boots it with the line below).
# guest: --smp 8 --append maxcpus=2
#   plan      8 possible CPUs, 2 read live; the plan's column kinds
#   hotplug   CPU 1 offline and back online mid-collection: every summed
#             column never steps back, and the last snapshot lies between
#             /proc/stat and /proc/vmstat read just before and just after
#             the stop
#   cpu       cpu= and the cpu knob: an absent or offline CPU refused with
#             EINVAL and a log line; the timer on the chosen CPU; moved by
#             the kernel when that CPU goes offline; back at the next start
TEST=cpus
. /guest/tests/lib.sh

CPU1=/sys/devices/system/cpu/cpu1/online
SUMMED=pgfault,pgalloc_normal,cpu.user,cpu.system,cpu.idle,softirqs.TIMER,stat.intr

plan_value() {
	ksnap_plan "$1"
}

stat_is_not() {
	_v=$(ksnap_stat "$1")
	echo "$1 $_v"
	[ -n "$_v" ] && [ "$_v" != "$2" ]
}

# --- plan: possible vs online ------------------------------------------------
check "guest: 8 possible CPUs" 0-7 "$(cat /sys/devices/system/cpu/possible)"
check "guest: 2 online CPUs" 0-1 "$(cat /sys/devices/system/cpu/online)"
if ! modprobe ksnap metrics=$SUMMED,nr_free_pages period_us=1000; then
	fail "module loads with metrics=$SUMMED,nr_free_pages" "status 0" "failure"
	finish
	exit
fi
check "plan: 7 summed columns by kind (VM events, CPU times, other)" "2 2 3 1" \
	"$(plan_value summed_vm_events) $(plan_value summed_cpu_times) $(plan_value summed_other) $(plan_value single)"
check "plan: possible CPUs" 0-7 "$(plan_value possible_cpus)"
check "plan: CPUs read live when stopped: the online ones" 0-1 "$(plan_value live_cpus)"
info "plan: $(ksnap_dump plan | tr '\n' ' ')"

# --- hotplug: CPU 1 offline and back, mid-collection ----------------------------
ksnapd --once -o /out/cpus.tsv 2> /out/cpus.err &
kpid=$!
wait_attached
check "hotplug: start" ok "$(guestprobe write $KSNAP_SYS/enable 1)"
wait_samples 50
check "hotplug: CPU 1 goes offline" ok "$(guestprobe write $CPU1 0)"
check "hotplug: read live while it is offline: CPU 0 only" 0 "$(plan_value live_cpus)"
wait_samples 50
check "hotplug: CPU 1 comes back" ok "$(guestprobe write $CPU1 1)"
check "hotplug: read live again" 0-1 "$(plan_value live_cpus)"
wait_samples 50
# The stop takes the last snapshot: /proc read just before and just after.
head -n 1 /proc/stat > /tmp/stat.before
grep -E '^(pgfault|pgalloc_normal) ' /proc/vmstat > /tmp/vmstat.before
check "hotplug: stop" ok "$(guestprobe write $KSNAP_SYS/enable 0)"
head -n 1 /proc/stat > /tmp/stat.after
grep -E '^(pgfault|pgalloc_normal) ' /proc/vmstat > /tmp/vmstat.after
wait_pid $kpid 60
check "hotplug: ksnapd exits 0" 0 $?
check "hotplug: the stream is intact (ksnap-verify)" 0 \
	"$(ksnap-verify -q /out/cpus.tsv > /out/cpus.verify 2>&1; echo $?)"

# Every summed column is cumulative: a share lost or counted twice at the
# hotplug would show as a step back (or, below, a value off /proc).
back=$(awk -F '\t' '
	$1 == "META" || $1 == "START_TIME" || $1 == "STATS" { next }
	!hdr { hdr = 1; for (i = 2; i <= NF; i++) name[i] = $i; next }
	{ for (i = 2; i <= 8; i++) { if (n && $i < prev[i]) { print name[i] " steps back at " $1 ": " prev[i] " -> " $i; exit } prev[i] = $i } n++ }
	END { if (!n) print "no rows" }' /out/cpus.tsv)
check "hotplug: no summed column ever steps back" "" "$back"

# The last row against /proc.  /proc/stat's cpu line is in USER_HZ (10 ms).
last=$(awk -F '\t' '$1 ~ /^[0-9]+$/ { l = $0 } END { print l }' /out/cpus.tsv)
hdr=$(awk -F '\t' '$1 == "Time (ns)" { print; exit }' /out/cpus.tsv)
col() { # NAME: the last row's value of a column
	printf '%s\n%s\n' "$hdr" "$last" |
		awk -F '\t' -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }'
}
vm() { sed -n "s/^$1 //p" "$2"; }
for v in pgfault pgalloc_normal; do
	b=$(vm $v /tmp/vmstat.before) a=$(vm $v /tmp/vmstat.after) got=$(col $v)
	if [ -n "$got" ] && [ "$got" -ge "${b:-0}" ] && [ "$got" -le "${a:-0}" ]; then
		pass "hotplug: $v of the last snapshot within /proc/vmstat's ($b <= $got <= $a)"
	else
		fail "hotplug: $v of the last snapshot within /proc/vmstat's" "$b <= x <= $a" "'$got'"
	fi
done
for f in user:2 system:4; do
	name=${f%:*} field=${f#*:}
	b=$(awk -v f=$field '{ print $f }' /tmp/stat.before)
	a=$(awk -v f=$field '{ print $f }' /tmp/stat.after)
	got=$(col cpu.$name)
	ticks=$(( ${got:-0} / 10000000 ))
	# The tick's nanoseconds become whole USER_HZ ticks: 1 of slack.
	if [ -n "$got" ] && [ $ticks -ge $(( b - 1 )) ] && [ $ticks -le $(( a + 1 )) ]; then
		pass "hotplug: cpu.$name of the last snapshot within /proc/stat's ($b <= $ticks <= $a ticks, +-1)"
	else
		fail "hotplug: cpu.$name of the last snapshot within /proc/stat's" "$b..$a ticks (+-1)" "$ticks ('$got' ns)"
	fi
done

# --- cpu: the sampler's CPU -----------------------------------------------------
unload
klog_mark
check "cpu: cpu=99 (no such CPU) fails the load" EINVAL "$(guestprobe load $KO cpu=99)"
check_lines "cpu: the log names CPU 99" ">0" "cpu: no CPU 99" "$(klog_since)"
check "cpu: nothing loaded after the refused load" no "$(module_loaded && echo yes || echo no)"

if ! modprobe ksnap metrics=pgfault period_us=1000; then
	fail "cpu: module loads" "status 0" "failure"
	finish
	exit
fi
check "cpu: default -1 (the first housekeeping CPU)" -1 "$(cat $KSNAP_SYS/cpu)"
check "cpu: start" ok "$(guestprobe write $KSNAP_SYS/enable 1)"
wait_samples 20
check "cpu: by default the sampler runs on CPU 0" 0 "$(ksnap_stat cpu)"
check "cpu: the knob refuses a change while running" EBUSY "$(guestprobe write $KSNAP_SYS/cpu 1)"
check "cpu: stop" ok "$(guestprobe write $KSNAP_SYS/enable 0)"
klog_mark
check "cpu: an absent CPU is refused" EINVAL "$(guestprobe write $KSNAP_SYS/cpu 8)"
check "cpu: garbage is refused" EINVAL "$(guestprobe write $KSNAP_SYS/cpu one)"
check "cpu: CPU 1 goes offline" ok "$(guestprobe write $CPU1 0)"
check "cpu: an offline CPU is refused" EINVAL "$(guestprobe write $KSNAP_SYS/cpu 1)"
check_lines "cpu: the log says CPU 1 is offline" ">0" "cpu: CPU 1 is offline" "$(klog_since)"
check "cpu: nothing changed" -1 "$(cat $KSNAP_SYS/cpu)"
check "cpu: CPU 1 comes back" ok "$(guestprobe write $CPU1 1)"
check "cpu: CPU 1 is accepted" ok "$(guestprobe write $KSNAP_SYS/cpu 1)"
check "cpu: start on CPU 1" ok "$(guestprobe write $KSNAP_SYS/enable 1)"
wait_samples 20
check "cpu: the sampler runs on the chosen CPU" 1 "$(ksnap_stat cpu)"
klog_mark
check "cpu: CPU 1 goes offline mid-collection" ok "$(guestprobe write $CPU1 0)"
check_wait "cpu: the kernel moved the timer to CPU 0" $WAIT_S stat_is cpu 0
wait_samples 20
pass "cpu: sampling goes on after the sampler's CPU went offline"
check_lines "cpu: the log says where the timer went" ">0" "where the sampler ran, went offline" "$(klog_since)"
check "cpu: CPU 1 comes back" ok "$(guestprobe write $CPU1 1)"
wait_samples 5
check "cpu: the timer stays where the kernel moved it" 0 "$(ksnap_stat cpu)"
check "cpu: stop" ok "$(guestprobe write $KSNAP_SYS/enable 0)"
check "cpu: start again" ok "$(guestprobe write $KSNAP_SYS/enable 1)"
wait_samples 20
check "cpu: the next start returns to the chosen CPU" 1 "$(ksnap_stat cpu)"
check "cpu: stop" ok "$(guestprobe write $KSNAP_SYS/enable 0)"
h=$(guestprobe ctrl)
ctrl() { printf '%s\n' "$h" | sed -n "s/^$1 //p"; }
check "cpu: taken = records written (head - start_position) + lost" \
	"$(ctrl taken)" "$(( $(ctrl head) - $(ctrl start_position) + $(ctrl lost) ))"
finish
