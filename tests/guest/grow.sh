# SPDX-License-Identifier: MIT
# Guest half of the growth test: a collection loaded with the module's
# defaults for room and ring (no ring size, no cgroup count), one global
# counter and a pattern that matches nothing, grows as GROW_CGROUPS
# (default 500) cgroups are made in bursts of 100, to what its read's
# bound admits; the rest are skipped and counted; it never stops.
#   memory    pgfault and memory.current: a cheap class.  The bound is
#             set, from a first start's measured price (stats/
#             cgroup_price_ns), to admit about a third of the cgroups, so
#             that some are skipped whatever the host's speed.  Asserted:
#             the collection runs to the end, no overrun stop; sampled +
#             skipped = made after each burst; more than 8 sampled (the
#             set grew past a start's matches); sampled at most what
#             admission bought; the middle of 5 windows' mean reads
#             within the bound (a read the host preempted makes one
#             window's mean long, not the middle one);
#             the log line naming a skipped match; every ksnapd stream
#             verifies and its STATS carry the skipped count.  Then
#             read_cap_us is lowered under the reads while running: the
#             kernel sheds cgroups (stats/sheds, counted as skipped) and
#             keeps running; raised again, it takes them back
#             (stats/regrows).
#   class     pgfault and cpu.stat.usage on a guest of 64 possible CPUs:
#             admission prices a cgroup by its own reader (a walk over
#             CPUs), not by the start set's cheap average column:
#             admitted cgroups x price fit in what the bound leaves after
#             the start's estimate, and no overrun stop.
# The tests' bound is off (lib.sh); this one sets its own: period_us=10000
# as docs/containers.md, read_pct=25, read_cap_us chosen as above.
# guest: --smp 64 --append maxcpus=2
# guest-alone: 64 possible CPUs, 2 online; a group's options would differ
TEST=${TEST:-grow}
. /guest/tests/lib.sh
S=$KSNAP_SYS
P=/sys/module/ksnap/parameters
WAIT_S=${WAIT_S:-120}
D=/ksgrow
GROW_CGROUPS=${GROW_CGROUPS:-500}
OUT=/tmp/grow
info "grow: $GROW_CGROUPS cgroups on $(nproc) online CPUs of $(cat /sys/devices/system/cpu/possible)"

stat_of() { # FILE KEY
	grep 'STATS	' "$1" | tail -n 1 | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p"
}

# stat_at_least KEY N: stats/KEY is N or more.
stat_at_least() {
	_v=$(ksnap_stat "$1")
	echo "$1 ${_v:-none} (want at least $2)"
	[ "${_v:-0}" -ge "$2" ]
}

# read_mean_median: the mean read of each of 5 windows of 50 snapshots
# (stats/read_sum_ns over taken), in $means, and the middle one in $mean.  A
# read the host preempted (a vCPU descheduled: 16 of them share the
# host's cores) is one read of tens of milliseconds: it lifts one
# window's mean, not the middle of five.
read_mean_median() {
	means=
	for _w in 1 2 3 4 5; do
		_s0=$(ksnap_stat read_sum_ns) _n0=$(ksnap_stat taken)
		wait_samples 50
		_n1=$(ksnap_stat taken)
		means="$means $(( ($(ksnap_stat read_sum_ns) - _s0) / (_n1 - _n0) ))"
	done
	mean=$(echo $means | tr ' ' '\n' | sort -n | sed -n 3p)
}

# accounted N: the set's cgroups (columns beside pgfault) and the skipped
# ones are the N made.
accounted() {
	_c=$(ksnap_plan columns)
	_k=$(ksnap_stat cgroups_skipped)
	echo "columns ${_c:-none}, skipped ${_k:-none} (want $1 cgroups in all)"
	[ $(( ${_c:-1} - 1 + ${_k:-0} )) = "$1" ]
}

# make_burst FIRST LAST: cgroups c-FIRST .. c-LAST, zero-padded.
make_burst() {
	_i=$1
	while [ $_i -le $2 ]; do
		mkdir $CG$D/c-$(printf %04d $_i)
		_i=$((_i + 1))
	done
}

# start_collection METRICS CAP_US: load, and start with ksnapd --once.
start_collection() {
	unload
	modprobe ksnap metrics=$1 "cgroups=$D/c-*" period_us=10000 \
		discover_ms=100 read_pct=25 read_cap_us=$2
	check "$TEST: load metrics=$1 read_cap_us=$2" 0 $?
	rm -rf $OUT
	mkdir -p $OUT
	ksnapd --once -o $OUT/g.tsv 2> /out/$TEST-ksnapd.err &
	kpid=$!
	wait_attached
	check "$TEST: start with no match" ok "$(guestprobe write $S/enable 1)"
}

# price_cap_us METRICS N: cap becomes a read_cap_us that admits about N
# cgroups of METRICS, from a first start's estimate and price, measured on
# a cgroup of the pattern (c-0000, removed after).
price_cap_us() {
	mkdir $CG$D/c-0000
	start_collection "$1" 1000000
	_e=$(ksnap_stat read_estimate_ns)
	_p=$(ksnap_stat cgroup_price_ns)
	guestprobe write $S/enable 0 > /dev/null
	wait_pid $kpid $WAIT_S
	rmdir $CG$D/c-0000
	info "$TEST: $1: start estimate $_e ns, one cgroup $_p ns"
	cap=$(( (_e + $2 * _p) / 1000 + 1 ))
}

# --- memory: a cheap class grows to what the bound admits ------------------
unload
mkdir -p $CG$D
echo +memory +cpu > $CG$D/cgroup.subtree_control
price_cap_us pgfault,memory.current $((GROW_CGROUPS / 3))
klog_mark
start_collection pgfault,memory.current "$cap"
admitted=$(ksnap_stat columns_admitted)
price=$(ksnap_stat cgroup_price_ns)
bound=$(ksnap_stat read_bound_ns)
info "memory: bound $bound ns, estimate $(ksnap_stat read_estimate_ns) ns, price $price ns: $admitted columns admitted"
check "memory: the price of a cgroup is measured" yes \
	"$([ "${price:-0}" -gt 0 ] && echo yes || echo no)"
made=0
while [ $made -lt "$GROW_CGROUPS" ]; do
	next=$((made + 100))
	[ $next -le "$GROW_CGROUPS" ] || next=$GROW_CGROUPS
	make_burst $((made + 1)) $next
	made=$next
	check_wait "memory: after a burst to $made, sampled + skipped = made" \
		$WAIT_S accounted $made
done
sampled=$(( $(ksnap_plan columns) - 1 ))
skipped=$(ksnap_stat cgroups_skipped)
admitted=$(ksnap_stat columns_admitted)
info "memory: a cgroup priced again on the first one made: $(ksnap_stat cgroup_price_ns) ns, $admitted columns admitted"
info "memory: $sampled sampled, $skipped skipped, sheds $(ksnap_stat sheds), regrows $(ksnap_stat regrows), read max $(ksnap_stat read_max_ns) ns"
check "memory: the collection still runs, never stopped" "running none" \
	"$(ksnap_stat state) $(ksnap_stat stop_reason)"
check "memory: the set grew past a start's 8 cgroups" yes \
	"$([ "$sampled" -gt 8 ] && echo yes || echo no)"
check "memory: sampled at most what admission bought ($((admitted - 1)))" yes \
	"$([ "$sampled" -le $((admitted - 1)) ] && echo yes || echo no)"
check "memory: the rest are skipped and counted" yes \
	"$([ "$skipped" -gt 0 ] && echo yes || echo no)"
read_mean_median
info "memory: the mean reads of 5 windows of 50 snapshots: $means ns"
check "memory: the middle of 5 windows' mean reads ($mean ns) is within the bound ($bound ns)" yes \
	"$([ "$mean" -le "$bound" ] && echo yes || echo no)"
check "memory: a log line says how many matches are not sampled, naming one" yes \
	"$(klog_since | grep -q "pattern matches not sampled, the first '$D/c-[0-9]*'" && echo yes || echo no)"
# Reads outgrow the bound while running (here the bound shrinks under
# them): the kernel sheds cgroups, never stops; given room, takes them back.
sum0=$(ksnap_stat read_sum_ns) n0=$(ksnap_stat taken)
wait_samples 50
recent=$(( ($(ksnap_stat read_sum_ns) - sum0) / ($(ksnap_stat taken) - n0) ))
half=$(( recent / 2000 + 1 ))
check "memory: read_cap_us lowered to ${half} us, half the last 50 reads' mean ($recent ns), while running" ok \
	"$(guestprobe write $P/read_cap_us $half)"
check_wait "memory: the kernel sheds cgroups" $WAIT_S stat_at_least sheds 1
check_wait "memory: the shed cgroups are counted as skipped" $WAIT_S \
	stat_at_least cgroups_skipped $((skipped + 1))
check "memory: shedding, the collection still runs" "running none" \
	"$(ksnap_stat state) $(ksnap_stat stop_reason)"
# Room again: the bound at the period, so that a TCG guest's stray long
# read (several ms) does not keep every second from being calm.
check "memory: read_pct raised to 100" ok "$(guestprobe write $P/read_pct 100)"
check "memory: read_cap_us raised to 1000000" ok \
	"$(guestprobe write $P/read_cap_us 1000000)"
check_wait "memory: with room again, shed cgroups are taken back" $WAIT_S \
	stat_at_least regrows 1
check "memory: after shedding and taking back, still running" "running none" \
	"$(ksnap_stat state) $(ksnap_stat stop_reason)"
check_wait "memory: sampled + skipped = made, after it all" $WAIT_S accounted $made
info "memory: sheds $(ksnap_stat sheds), regrows $(ksnap_stat regrows), skipped $(ksnap_stat cgroups_skipped)"
check "memory: stop" ok "$(guestprobe write $S/enable 0)"
wait_pid $kpid $WAIT_S
check_st "memory: ksnapd --once writes every set and exits 0" 0 $? /out/$TEST-ksnapd.err
bad=0
for f in $OUT/g.tsv*; do
	ksnap-verify --single "$f" > /out/$TEST-verify.txt 2>&1 || {
		bad=$((bad + 1))
		info "ksnap-verify rejects $f: $(tail -n 3 /out/$TEST-verify.txt | tr '\n' '|')"
	}
done
check "memory: every stream verifies" 0 $bad
last=$(ls $OUT/g.tsv* | sort -t. -k3 -n | tail -n 1)
check "memory: the last stream's STATS carry stats/cgroups_skipped" \
	"$(ksnap_stat cgroups_skipped)" "$(stat_of "$last" ksnap_cgroups_skipped)"

# --- class: an expensive class is priced as itself -------------------------
for c in $CG$D/c-*; do rmdir "$c"; done
price_cap_us pgfault,cpu.stat.usage $((GROW_CGROUPS / 3))
start_collection pgfault,cpu.stat.usage "$cap"
estimate=$(ksnap_stat read_estimate_ns)
price=$(ksnap_stat cgroup_price_ns)
bound=$(ksnap_stat read_bound_ns)
admitted=$(ksnap_stat columns_admitted)
info "class: bound $bound ns, estimate $estimate ns, a cpu.stat.usage cgroup $price ns: $admitted columns admitted"
check "class: admitted cgroups at their own price fit what the bound leaves" yes \
	"$([ $(( (admitted - 1) * price )) -le $(( bound > estimate ? bound - estimate : 0 )) ] && echo yes || echo no)"
make_burst 1 "$GROW_CGROUPS"
check_wait "class: all $GROW_CGROUPS made are sampled or skipped" $WAIT_S \
	accounted "$GROW_CGROUPS"
wait_samples 100
info "class: $(( $(ksnap_plan columns) - 1 )) sampled, $(ksnap_stat cgroups_skipped) skipped, price again $(ksnap_stat cgroup_price_ns) ns, $(ksnap_stat columns_admitted) columns admitted, sheds $(ksnap_stat sheds), regrows $(ksnap_stat regrows), read mean $(( $(ksnap_stat read_sum_ns) / $(ksnap_stat taken) )) ns, max $(ksnap_stat read_max_ns) ns, recent $(ksnap_stat read_recent_ns) ns"
check "class: the collection still runs, never stopped" "running none" \
	"$(ksnap_stat state) $(ksnap_stat stop_reason)"
check "class: stop" ok "$(guestprobe write $S/enable 0)"
wait_pid $kpid $WAIT_S
check_st "class: ksnapd --once exits 0" 0 $? /out/$TEST-ksnapd.err

unload
for c in $CG$D/c-*; do rmdir "$c"; done
rmdir $CG$D
finish
