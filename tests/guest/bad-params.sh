# SPDX-License-Identifier: MIT
# Guest half of the bad-parameters test: what a new user gets wrong.  Every
# refused load must fail, say in the kernel log which value was wrong, and
# leave no module behind; every refused sysfs write must return the right
# errno and change nothing.
TEST=bad-params
. /guest/tests/lib.sh

mkdir -p $CG/ksnaptest $CG/nomem/child
# /nomem has the memory controller (the root enables it for its children);
# /nomem/child does not, because /nomem's subtree_control is empty.

# refused_load BEHAVIOUR PARAMS LOGWORD [ERRNO]
refused_load() {
	what=$1 params=$2 word=$3 errno=${4:-}
	unload
	klog_mark
	# shellcheck disable=SC2086
	out=$(modprobe ksnap $params 2>&1)
	st=$?
	log=$(klog_since | grep 'ksnap' | grep -v ksnap-test-mark)
	if [ $st -ne 0 ]; then
		pass "modprobe ksnap $params fails ($what)"
	else
		fail "modprobe ksnap $params fails ($what)" "nonzero status" "status 0"
	fi
	if printf '%s\n' "$log" | grep -qF -- "$word"; then
		pass "kernel log names '$word' ($(printf '%s\n' "$log" | grep -F -- "$word" | head -n 1 | sed 's/^\[[^]]*\] //'))"
	else
		fail "kernel log names '$word' for $params" "a ksnap line with '$word'" "'$(printf '%s' "$log" | tr '\n' '|')' (modprobe said: $out)"
	fi
	if module_loaded; then
		fail "no module is left loaded after $params" "ksnap not in /proc/modules" "loaded"
	else
		pass "no module is left loaded after $params"
	fi
	if [ -n "$errno" ]; then
		unload
		got=$(guestprobe load "$KO" "$params")
		check "finit_module with $params fails with $errno" "$errno" "$got"
	fi
	unload
}

# also_logged BEHAVIOUR WORD: the kernel log of the last refused_load names
# WORD too (one load for two things it must say).
also_logged() {
	if printf '%s\n' "$log" | grep -qF -- "$2"; then
		pass "kernel log names '$2' ($1)"
	else
		fail "kernel log names '$2' ($1)" "a ksnap line with '$2'" "'$(printf '%s' "$log" | tr '\n' '|')'"
	fi
}

refused_load "unknown metric" "metrics=nosuch" "nosuch" EINVAL
refused_load "unknown metric among good ones" "metrics=pgfault,nosuch2" "nosuch2" EINVAL
refused_load "a misspelt group" "metrics=vmstats" "unknown metric or group 'vmstats'" EINVAL
also_logged "a misspelt group names the groups" "groups: all, vmstat, cpu, container, pod"
refused_load "a group with a CPU selector" "metrics=vmstat[cpu]" "a group takes no selector: 'vmstat[cpu]'" EINVAL
# all's per-cgroup metrics for enough cgroups to give more columns than a
# set may have (KSNAP_MAX_COLUMNS, 8192): how many depends on the kernel's
# catalogue (about 45 per cgroup with memory.stat.*, 20 without).  One
# pattern names them all: cgroups= is a charp parameter, at most 1024
# characters, too short for hundreds of paths.
modprobe ksnap
percg=$(ksnapd --list-metrics=container | wc -l)
unload
ncg=$((8192 / (percg > 0 ? percg : 1) + 1))
mkdir -p $CG/kover
echo +memory > $CG/kover/cgroup.subtree_control
seq $ncg | sed "s|^|$CG/kover/k|" | xargs mkdir -p
info "$ncg cgroups of $percg per-cgroup metrics each"
refused_load "a group giving more columns than a set may have" "metrics=all cgroups=/kover/*" "group 'all' gives" EINVAL
seq $ncg | sed "s|^|$CG/kover/k|" | xargs rmdir
rmdir $CG/kover
refused_load "the container group without cgroups" "metrics=container" "selects no metric" EINVAL
refused_load "zero period" "period_us=0" "period_us: 0" EINVAL
refused_load "period below the 10 us minimum" "period_us=5" "period_us: 5" EINVAL
refused_load "period above the maximum" "period_us=2000000000" "2000000000" EINVAL
refused_load "cgroup that does not exist" "cgroups=/does/not/exist" "/does/not/exist" ENOENT
refused_load "cgroup without the memory controller" "cgroups=/nomem/child" "subtree_control" EINVAL
also_logged "cgroup without the memory controller names it" "/nomem/child"
refused_load "absurd ring size" "ring_kb=999999999" "999999999"
refused_load "ring smaller than the minimum" "ring_kb=1" "ring_kb: 1"
refused_load "per-cgroup metric without cgroups" "metrics=memory.current" "memory.current" EINVAL
refused_load "one metric summed and per CPU" "metrics=pgfault,pgfault[cpu]" "pgfault[cpu]" EINVAL
refused_load "every CPU and one CPU of a metric" "metrics=pgfault[cpu],pgfault[0]" "selected twice" EINVAL
mkdir -p "$CG/bra[ket]"
refused_load "cgroup path with brackets (no stream column can carry it)" "cgroups=/bra[ket]" "/bra[ket]" EINVAL
rmdir "$CG/bra[ket]"

# Sysfs at the wrong time.
unload
if ! modprobe ksnap metrics=pgfault,memory.current cgroups=/ksnaptest period_us=1000; then
	fail "module loads with good parameters" "status 0" "failure"
	finish
	exit
fi
pass "module loads with good parameters"
S=$KSNAP_SYS
check "enable reads 0 after load" 0 "$(cat $S/enable)"
check "metrics reads back what was loaded" "pgfault,memory.current" "$(cat $S/metrics)"
check "cgroups reads back what was loaded" "/ksnaptest" "$(cat $S/cgroups)"
check "period_us reads back what was loaded" 1000 "$(cat $S/period_us)"
ksnapd --list-metrics | grep -q '^pgfault	'
check "ksnapd --list-metrics lists pgfault" 0 $?

check "garbage to enable while stopped is EINVAL" EINVAL "$(guestprobe write $S/enable maybe)"
check "enable still reads 0" 0 "$(cat $S/enable)"
check "stats state still stopped" stopped "$(ksnap_stat state)"
check "period_us=0 is EINVAL" EINVAL "$(guestprobe write $S/period_us 0)"
check "period_us=abc is EINVAL" EINVAL "$(guestprobe write $S/period_us abc)"
check "period_us unchanged after refused writes" 1000 "$(cat $S/period_us)"
check "metrics=nosuch while stopped is EINVAL" EINVAL "$(guestprobe write $S/metrics nosuch)"
check "metrics unchanged after a refused write" "pgfault,memory.current" "$(cat $S/metrics)"
check "metrics with a metric summed and per CPU is EINVAL" EINVAL "$(guestprobe write $S/metrics 'pgfault,pgfault[cpu]')"
check "metrics unchanged after the mixed selection" "pgfault,memory.current" "$(cat $S/metrics)"
check "cgroups=/does/not/exist while stopped is ENOENT" ENOENT "$(guestprobe write $S/cgroups /does/not/exist)"
check "cgroups unchanged after a refused write" "/ksnaptest" "$(cat $S/cgroups)"

check "writing 1 to enable starts" ok "$(guestprobe write $S/enable 1)"
check "enable reads 1" 1 "$(cat $S/enable)"
check "stats state running" running "$(ksnap_stat state)"
check "writing 1 again while running is accepted" ok "$(guestprobe write $S/enable 1)"
check "period_us while running is EBUSY" EBUSY "$(guestprobe write $S/period_us 500)"
check "period_us unchanged while running" 1000 "$(cat $S/period_us)"
check "metrics while running is EBUSY" EBUSY "$(guestprobe write $S/metrics pgfault)"
check "metrics unchanged while running" "pgfault,memory.current" "$(cat $S/metrics)"
check "cgroups while running is EBUSY" EBUSY "$(guestprobe write $S/cgroups /nomem)"
check "cgroups unchanged while running" "/ksnaptest" "$(cat $S/cgroups)"
check "garbage to enable while running is EINVAL" EINVAL "$(guestprobe write $S/enable maybe)"
check "enable still reads 1 after garbage" 1 "$(cat $S/enable)"
check "still running after garbage" running "$(ksnap_stat state)"
check_wait "snapshots are taken while running" $WAIT_S taken_at_least 1
check "writing 0 to enable stops" ok "$(guestprobe write $S/enable 0)"
check "enable reads 0 after stop" 0 "$(cat $S/enable)"
check "stats state stopped after stop" stopped "$(ksnap_stat state)"
check "period_us=2000 while stopped is accepted" ok "$(guestprobe write $S/period_us 2000)"
check "period_us reads 2000" 2000 "$(cat $S/period_us)"
check "metrics=pgfault,pgmajfault while stopped is accepted" ok "$(guestprobe write $S/metrics pgfault,pgmajfault)"
check "metrics reads pgfault,pgmajfault" "pgfault,pgmajfault" "$(cat $S/metrics)"
rmmod ksnap
check "rmmod after the sysfs checks" 0 $?

# group_load PARAMS EXPECTED_MIN EXPECTED_MAX: loads with a group, samples
# with ksnapd, and counts the stream's columns.
group_load() {
	params=$1 min=$2 max=$3
	written=${params%% *}
	written=${written#metrics=}
	unload
	# shellcheck disable=SC2086
	if ! modprobe ksnap $params; then
		fail "modprobe ksnap $params loads" "status 0" "failure"
		return
	fi
	pass "modprobe ksnap $params loads"
	ksnapd --once -o /tmp/group.tsv 2> /tmp/group.err &
	kpid=$!
	wait_attached
	guestprobe write $S/enable 1 > /dev/null
	wait_samples 5
	guestprobe write $S/enable 0 > /dev/null
	wait_pid $kpid $WAIT_S
	check "$params: ksnapd samples and exits 0" 0 $?
	ncol=$(awk -F'\t' '$1 == "Time (ns)" { print NF - 1; exit }' /tmp/group.tsv)
	if [ "${ncol:-0}" -ge "$min" ] && [ "${ncol:-0}" -le "$max" ]; then
		pass "$params: $ncol columns, in [$min, $max]"
	else
		fail "$params: columns in [$min, $max]" "[$min, $max]" "${ncol:-none}"
	fi
	rows=$(grep -c '^[0-9]' /tmp/group.tsv)
	[ "$rows" -ge 5 ] && pass "$params: $rows rows" ||
		fail "$params: 5 rows at least" ">= 5" "$rows"
	back=$(cat $S/metrics)
	nback=$(printf '%s' "$back" | tr ',' '\n' | grep -c .)
	if [ "$nback" -eq "$ncol" ] || [ "$back" = "$written" ]; then
		pass "$params: metrics reads back the columns' metrics, or the list as written (${#back} bytes)"
	else
		fail "$params: metrics reads back" "$ncol metrics or $written" "$back"
	fi
}
modprobe ksnap
ksnapd --list-metrics > /tmp/list.txt
unload
# Without cgroups, all is every metric but the per-cgroup ones (and the
# pressure ones when PSI is off).
nall=$(awk -F'\t' '$5 != "cgroup"' /tmp/list.txt | wc -l)
npsi=$(awk -F'\t' '$5 != "cgroup" && $1 ~ /^pressure\./' /tmp/list.txt | wc -l)
nvm=$(awk -F'\t' '$5 != "cgroup" && $1 !~ /\./' /tmp/list.txt | wc -l)
# At 10 ms: a read of 200 columns under TCG must fit in the period.
group_load "metrics=all period_us=10000" $((nall - npsi)) $nall
group_load "metrics=vmstat period_us=10000" $nvm $nvm
group_load "metrics=vmstat,cpu,memory.current cgroups=/ksnaptest period_us=10000" $((nvm + 11)) $((nvm + 11))
unload
rmdir $CG/nomem/child $CG/nomem $CG/ksnaptest
finish
