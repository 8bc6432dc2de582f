# Guest half of the bench (scripts/bench runs it with scripts/guest; the
# bench programs are in /guest/files/).  Writes key=value lines to
# /out/bench.raw: the spinner's baseline, one ksnap and one poller line per
# (columns, period), the end-to-end attempts.  Figures only; nothing is
# asserted.
#   SECONDS_PER_POINT  sweep: seconds per measurement (default 2)
#   E2E_SECONDS        end to end: seconds to sustain (default 60)
#   PERIODS COLUMNS    the sweep (defaults below)
set -u
B=/guest/files
RAW=/out/bench.raw
S=${SECONDS_PER_POINT:-2}
E2E=${E2E_SECONDS:-60}
PERIODS=${PERIODS:-"1000 200 100 50 20"}
COLUMNS=${COLUMNS:-"4 16 64"}
SYS=/sys/kernel/ksnap
CG=/sys/fs/cgroup
: > $RAW
chmod +x $B/* 2>/dev/null

log() { echo "bench-guest: $*"; }

# Machine, as the guest sees it.
{
	echo "guest_kernel=$(uname -r)"
	echo "guest_nproc=$(nproc)"
	echo "guest_mem_kb=$(awk '/MemTotal/ { print $2 }' /proc/meminfo)"
	echo "guest_clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "guest_hrtimer_res=$(awk '/resolution/ { print $3; exit }' /proc/timer_list 2>/dev/null)"
} > /out/guest.env

for i in $(seq 0 63); do mkdir -p $CG/bench$i; done

# The catalogue this module has.
modprobe ksnap || { log "modprobe ksnap failed"; dmesg | tail -5; exit 1; }
cut -f1 $SYS/available_metrics > /tmp/catalogue
rmmod ksnap
has() { grep -qx "$1" /tmp/catalogue; }

VM_CAND="pgfault pgmajfault nr_free_pages pgpgin pgpgout pgfree pgactivate
pgdeactivate pswpin pswpout pglazyfree pgrefill pgreuse pgsteal_kswapd
pgsteal_direct pgscan_kswapd pgscan_direct pgscan_anon pgscan_file
pgsteal_anon pgsteal_file slabs_scanned pgrotated oom_kill nr_inactive_anon
nr_active_anon nr_inactive_file nr_active_file"
ST_CAND="user nice system idle iowait irq softirq steal"

# pick N: sets MET (ksnap metrics=), CGS (cgroups=), PARGS (poller).
pick() {
	n=$1
	case $n in
	4) nvm=3 nst=0 ;;
	16) nvm=8 nst=4 ;;
	*) nvm=24 nst=8 ;;
	esac
	MET="" PARGS="" vml="" stl="" got=0
	for k in $VM_CAND; do
		[ $got -ge $nvm ] && break
		has "$k" && grep -q "^$k " /proc/vmstat || continue
		vml="$vml${vml:+,}$k" MET="$MET${MET:+,}$k" got=$((got + 1))
	done
	g=0
	for k in $ST_CAND; do
		[ $g -ge $nst ] && break
		has "cpu.$k" || continue
		stl="$stl${stl:+,}$k" MET="$MET${MET:+,}cpu.$k" g=$((g + 1))
	done
	ncg=$((n - got - g))
	CGS=""
	for i in $(seq 0 $((ncg - 1))); do
		CGS="$CGS${CGS:+,}/bench$i"
		PARGS="$PARGS --cgroup-file $CG/bench$i/memory.current"
	done
	MET="$MET,memory.current"
	[ -n "$vml" ] && PARGS="$PARGS --vmstat $vml"
	[ -n "$stl" ] && PARGS="$PARGS --stat $stl"
	echo "config cols=$n metrics=$MET cgroups=$CGS" >> /out/configs.txt
}

$B/poller --baseline 2 --cpu 0 | sed 's/^/phase=start /' >> $RAW
for n in $COLUMNS; do
	pick $n
	for p in $PERIODS; do
		if ! modprobe ksnap metrics=$MET cgroups=$CGS period_us=$p ring_kb=8192; then
			log "modprobe failed: cols=$n period=$p"
			echo "kind=ksnap cols_req=$n period_us=$p error=modprobe" >> $RAW
			continue
		fi
		$B/ringstat --seconds $S --tag "cols_req=$n" >> $RAW ||
			echo "kind=ksnap cols_req=$n period_us=$p error=ringstat" >> $RAW
		rmmod ksnap
		$B/poller --period-us $p --seconds $S --cpu 0 --tag "cols_req=$n" $PARGS >> $RAW ||
			echo "kind=poller cols_req=$n period_us=$p error=poller" >> $RAW
		log "cols=$n period=$p done"
	done
done
$B/poller --baseline 2 --cpu 0 | sed 's/^/phase=end /' >> $RAW

# End to end: module + ksnapd --lossy to a file, 16 columns; periods from
# the longest down, each run for E2E seconds and cut short at its first lost
# snapshot (stats lost > 0: the ring filled because ksnapd did not keep
# up); the first period that loses ends the search.  Periods the timer
# missed (hrtimer overruns, frequent under TCG) are reported with each run
# (capture), not counted as lost.
pick 16
stat_of() { awk -v k="$1" '$1 == k { print $2 }' $SYS/stats; }
for p in ${E2E_PERIODS:-1000 200 100 50 20}; do
	modprobe ksnap metrics=$MET cgroups=$CGS period_us=$p || continue
	rm -f /tmp/e2e.tsv
	ksnapd --lossy --once --no-wait -o /tmp/e2e.tsv 2> /tmp/e2e.log &
	kp=$!
	sleep 0.5
	taskset -c 0 sh -c "echo 1 > $SYS/enable"
	t=0 ok=1
	while [ $t -lt $E2E ]; do
		sleep 1
		t=$((t + 1))
		if [ "$(stat_of lost)" != 0 ]; then
			ok=0
			break
		fi
	done
	taskset -c 0 sh -c "echo 0 > $SYS/enable"
	wait $kp
	kst=$?
	ver=$(timeout 120 ksnap-verify /tmp/e2e.tsv > /tmp/verify.out 2>&1; echo $?)
	echo "kind=e2e period_us=$p cols=16 seconds=$t ok=$ok taken=$(stat_of taken) lost=$(stat_of lost) missed=$(stat_of missed) read_max_ns=$(stat_of read_max_ns) lateness_max_ns=$(stat_of lateness_max_ns) ksnapd_status=$kst verify_status=$ver bytes=$(wc -c < /tmp/e2e.tsv)" >> $RAW
	sed 's/^/e2e ksnapd: /' /tmp/e2e.log >> /out/e2e.log
	sed 's/^/e2e verify: /' /tmp/verify.out | tail -3 >> /out/e2e.log
	rmmod ksnap
	rm -f /tmp/e2e.tsv
	log "e2e period=$p ok=$ok after ${t}s"
	[ $ok = 1 ] || break
done
cat $RAW
