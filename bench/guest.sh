# SPDX-License-Identifier: MIT
# Guest half of the bench (scripts/bench runs it with scripts/guest; the
# bench programs and ksnap_floor.ko are in /guest/files/).  Writes
# key=value lines to /out/bench.raw; figures only, nothing is asserted.
# PHASES says what runs, in this order:
#   sweep     the spinner's baseline, then one ksnap and one poller line
#             per (columns, period), then the baseline again
#   floor     at 16 columns, per period and repetition: the spinner alone,
#             the floor module (bench/floor/) alone, ksnap alone, all on
#             CPU 0
#   pipeline  ksnap.ko + ksnapd (plain, to a file) at 16 columns per
#             period: ksnapd's CPU and wake-ups, the module's own cost
#   e2e       module + ksnapd --lossy, the shortest period sustained
#   scale     (the scale guests, one per CPU count) the read cost per
#             snapshot of 16 summed and 16 global columns (and 16 summed
#             ones read straight from per-CPU arrays)
#   discovery a running collection follows /disc/c*: mkdir to the first
#             record of the set with the new cgroup (bench/discostat.c),
#             DISC_SAMPLES cgroups at each of DISC_MS
#   width     read per snapshot (stats) of memory.current and
#             cpu.stat.usage for each of WIDTH_SETS cgroups, and a
#             cgroupfs poller's sweep of the same (bench/cgpoll.c)
#   pause     the time a set change keeps the timer from sampling
#             (stats/set_change_pause_max_ns) against the set's size:
#             for each N of PAUSE_SETS, a collection started on N-1
#             cgroups of memory.current and cpu.stat.usage gains one
#             more, one set change
#   node      a container node: NODE_CGROUPS cgroups of the pod group at
#             100 Hz with ksnapd, beside a cgroupfs poller of the same
#             counters (bench/cgpoll.c --pod)
#   scrape    ksnap.ko + ksnapd --lossy with its endpoint, 64 columns,
#             SCRAPE_SECONDS per period of SCRAPE_PERIODS, with and
#             without a scraper at SCRAPE_RATE requests/s (bench/scrape.c):
#             the ring's loss
# Environment:
#   PHASES             (default "sweep floor pipeline e2e")
#   SECONDS_PER_POINT  sweep and floor: seconds per measurement (default 2)
#   PERIODS COLUMNS    the sweep (defaults below)
#   FLOOR_PERIODS FLOOR_REPS   the floor (defaults "1000 100 20", 3)
#   PIPE_PERIODS PIPE_SECONDS  the pipeline ("1000 100 10", 10 s each)
#   E2E_SECONDS        end to end: seconds to sustain (default 60)
#   SCALE_SECONDS SCALE_REPS   scale: seconds per run, runs (3, 3)
#   DISC_MS DISC_SAMPLES DISC_SETTLE  discovery ("1000 500 100", 50, 10)
#   WIDTH_SETS WIDTH_SECONDS WIDTH_SWEEPS   width ("10 100 1000 2000 2048", 5, 20)
#   PAUSE_SETS         pause ("1 10 100 500 1000 2000")
#   NODE_CGROUPS NODE_SECONDS NODE_SWEEPS   node (550, 10, 20)
#   SCRAPE_PERIODS SCRAPE_SECONDS SCRAPE_RATE   scrape ("1000 200", 20, 100)
set -u
B=/guest/files
RAW=/out/bench.raw
S=${SECONDS_PER_POINT:-2}
E2E=${E2E_SECONDS:-60}
PERIODS=${PERIODS:-"1000 200 100 50 20"}
COLUMNS=${COLUMNS:-"4 16 64"}
PHASES=${PHASES:-"sweep floor pipeline e2e"}
FLOOR_PERIODS=${FLOOR_PERIODS:-"1000 100 20"}
FLOOR_REPS=${FLOOR_REPS:-3}
PIPE_PERIODS=${PIPE_PERIODS:-"1000 100 10"}
PIPE_SECONDS=${PIPE_SECONDS:-10}
SCALE_SECONDS=${SCALE_SECONDS:-3}
SCALE_REPS=${SCALE_REPS:-3}
SYS=/sys/class/misc/ksnap
CG=/sys/fs/cgroup
: > $RAW
chmod +x $B/* 2>/dev/null

log() { echo "bench-guest: $*"; }
phase() { case " $PHASES " in *" $1 "*) return 0 ;; esac; return 1; }
# CPUs in a list such as 0-1,4 (/sys/devices/system/cpu/online).
cpus_in() {
	tr ',' '\n' | awk -F- '$1 != "" { n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n + 0 }'
}
stat_of() { cat $SYS/stats/$1; }
plan_of() { cat $SYS/plan/$1; }
# Start and stop from CPU 0, where the timer is pinned (cpu=0).
enable() { taskset -c 0 sh -c "echo $1 > $SYS/enable"; }

# Machine, as the guest sees it.
{
	echo "guest_kernel=$(uname -r)"
	echo "guest_nproc=$(nproc)"
	echo "guest_mem_kb=$(awk '/MemTotal/ { print $2 }' /proc/meminfo)"
	echo "guest_clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "guest_hrtimer_res=$(awk '/resolution/ { print $2 " " $3; exit }' /proc/timer_list 2>/dev/null)"
	echo "guest_online=$(cpus_in < /sys/devices/system/cpu/online)"
	echo "guest_possible=$(cpus_in < /sys/devices/system/cpu/possible)"
	echo "phases=$PHASES"
} > /out/guest.env

for i in $(seq 0 63); do mkdir -p $CG/bench$i; done

# The catalogue this module has.
modprobe ksnap || { log "modprobe ksnap failed"; dmesg | tail -5; exit 1; }
ksnapd --list-metrics | cut -f1 > /tmp/catalogue
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

# --- Sweep: ksnap and the poller ------------------------------------------------
if phase sweep; then
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
fi

# --- Floor: ksnap against an empty hrtimer, same CPU, same period ---------------
# Each repetition: the spinner alone (its baseline for this repetition),
# then the floor module, then ksnap at 16 columns, each for S seconds with
# the timer on CPU 0 and the spinner there; the lines carry block=floor.
if phase floor; then
	pick 16
	for p in $FLOOR_PERIODS; do
		for r in $(seq 1 $FLOOR_REPS); do
			t="block=floor rep=$r period_us=$p"
			$B/poller --baseline $S --cpu 0 | sed "s/^/$t /" >> $RAW
			if insmod $B/ksnap_floor.ko period_us=$p cpu=0; then
				$B/floorstat --seconds $S --cpu 0 --tag "block=floor rep=$r" >> $RAW ||
					echo "kind=floor $t error=floorstat" >> $RAW
				rmmod ksnap_floor
			else
				echo "kind=floor $t error=insmod" >> $RAW
			fi
			if modprobe ksnap metrics=$MET cgroups=$CGS period_us=$p cpu=0 ring_kb=8192; then
				$B/ringstat --seconds $S --timer-cpu 0 --reader-cpu 1 \
					--tag "block=floor rep=$r cols_req=16" >> $RAW ||
					echo "kind=ksnap $t error=ringstat" >> $RAW
				rmmod ksnap
			else
				echo "kind=ksnap $t error=modprobe" >> $RAW
			fi
		done
		log "floor period=$p done"
	done
fi

# --- Pipeline: ksnap.ko + ksnapd, the whole pipeline's CPU ---------------------
# ksnapd (plain, the default, to a file in tmpfs) on CPU 1, the timer on
# CPU 0 with the spinner; the spinner alone first, with the module loaded
# and stopped.  pipestat measures PIPE_SECONDS of the running collection
# (after 0.5 s of warm-up); the ring is the default 1024 KiB.
if phase pipeline; then
	pick 16
	for p in $PIPE_PERIODS; do
		t="block=pipe period_us=$p"
		if ! modprobe ksnap metrics=$MET cgroups=$CGS period_us=$p cpu=0; then
			echo "kind=pipe $t error=modprobe" >> $RAW
			continue
		fi
		rm -f /tmp/pipe.tsv
		taskset -c 1 ksnapd --once --no-wait -o /tmp/pipe.tsv 2> /tmp/pipe.log &
		kp=$!
		sleep 0.5
		$B/poller --baseline $S --cpu 0 | sed "s/^/$t /" >> $RAW
		enable 1
		sleep 0.5
		$B/pipestat --pid $kp --seconds $PIPE_SECONDS --cpu 0 \
			--tag "$t cols=16 ring_kb=1024 wake_ms=$(cat $SYS/wake_ms)" >> $RAW ||
			echo "kind=pipe $t error=pipestat" >> $RAW
		enable 0
		wait $kp
		kst=$?
		echo "kind=pipe_end $t ksnapd_status=$kst bytes=$(wc -c < /tmp/pipe.tsv) taken=$(stat_of taken) lost=$(stat_of lost) missed=$(stat_of missed) wakeups=$(stat_of wakeups)" >> $RAW
		sed "s/^/pipe $p ksnapd: /" /tmp/pipe.log >> /out/e2e.log
		rmmod ksnap
		rm -f /tmp/pipe.tsv
		log "pipeline period=$p done"
	done
fi

# --- Scale: the read cost per snapshot by CPU count (the scale guests) ---------
# Three sets of 16 columns, each at 1 ms for SCALE_SECONDS, SCALE_REPS
# times, started and stopped from CPU 0 with no reader (the 8 MiB ring
# holds every record); stats gives read_sum_ns / taken, plan the cache
# lines:
#   summed  12 VM events and cpu.user, cpu.system, cpu.idle, cpu.iowait,
#           read CPU by CPU (idle and iowait through the kernel's NOHZ
#           idle accounting, which reads the clock once per CPU each)
#   direct  the same 12 VM events and cpu.user, cpu.nice, cpu.system,
#           cpu.softirq: every one read straight from a per-CPU array
#   global  zone and node state, read once
#   cgusage cpu.stat.usage of SCALE_CGROUPS (16) empty leaf cgroups, each
#           a walk over the CPUs (the read bound off: read_pct=100,
#           read_cap_us=1000, so that every one is admitted)
SUMMED_CAND="pgfault pgmajfault pgalloc_normal pgfree pgactivate pgdeactivate
pglazyfree pgrefill pgreuse pgrotated pgsteal_kswapd pgscan_kswapd pgpgin
pgpgout pswpin pswpout"
SUMMED_CPU="cpu.user cpu.system cpu.idle cpu.iowait"
DIRECT_CPU="cpu.user cpu.nice cpu.system cpu.softirq"
GLOBAL_CAND="nr_free_pages nr_zone_inactive_anon nr_zone_active_anon
nr_zone_inactive_file nr_zone_active_file nr_zone_unevictable
nr_zone_write_pending nr_mlock nr_inactive_anon nr_active_anon
nr_inactive_file nr_active_file nr_file_pages nr_anon_pages nr_mapped
nr_shmem nr_dirty nr_writeback"
# first N LIST...: the first N of the words that are in the catalogue.
first() {
	want=$1 got=0 out=""
	shift
	for k in $*; do
		[ $got -ge $want ] && break
		has "$k" || continue
		out="$out${out:+,}$k" got=$((got + 1))
	done
	echo "$out"
}
if phase scale; then
	online=$(cpus_in < /sys/devices/system/cpu/online)
	possible=$(cpus_in < /sys/devices/system/cpu/possible)
	mkdir -p $CG/kscale
	for i in $(seq 1 ${SCALE_CGROUPS:-16}); do mkdir -p $CG/kscale/u$i; done
	for set in summed direct global cgusage; do
		CGS="" BOUND=""
		case $set in
		summed) MET="$(first 12 $SUMMED_CAND),$(first 4 $SUMMED_CPU)" ;;
		direct) MET="$(first 12 $SUMMED_CAND),$(first 4 $DIRECT_CPU)" ;;
		global) MET=$(first 16 $GLOBAL_CAND) ;;
		cgusage) MET=cpu.stat.usage CGS="cgroups=/kscale/*"
			BOUND="read_pct=100 read_cap_us=1000" ;;
		esac
		echo "config set=$set metrics=$MET $CGS" >> /out/configs.txt
		t="set=$set online=$online possible=$possible"
		# shellcheck disable=SC2086
		if ! modprobe ksnap metrics=$MET $CGS $BOUND period_us=1000 cpu=0 ring_kb=8192; then
			echo "kind=scale $t error=modprobe" >> $RAW
			continue
		fi
		pl="cols=$(plan_of columns) summed_vm=$(plan_of summed_vm_events) summed_cpu=$(plan_of summed_cpu_times) summed_other=$(plan_of summed_other) single=$(plan_of single) lines_per_cpu=$(plan_of cache_lines_per_cpu) live=$(plan_of live_cpus | cpus_in)"
		for r in $(seq 1 $SCALE_REPS); do
			enable 1
			sleep $SCALE_SECONDS
			enable 0
			echo "kind=scale $t rep=$r $pl taken=$(stat_of taken) lost=$(stat_of lost) missed=$(stat_of missed) read_sum_ns=$(stat_of read_sum_ns) read_max_ns=$(stat_of read_max_ns) lateness_sum_ns=$(stat_of lateness_sum_ns) cpu=$(stat_of cpu)" >> $RAW
		done
		rmmod ksnap
		log "scale $set online=$online possible=$possible done"
	done
fi

# End to end: module + ksnapd --lossy to a file, 16 columns; periods from
# the longest down, each run for E2E seconds and cut short at its first lost
# snapshot (stats lost > 0: the ring filled because ksnapd did not keep
# up); the first period that loses ends the search.  Periods the timer
# missed (hrtimer overruns, frequent under TCG) are reported with each run
# (capture), not counted as lost.
if phase e2e; then
	pick 16
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
fi

# Discovery: a collection with a pattern, at 1 ms (its records' times
# place the set change within 1 ms); discostat makes DISC_SAMPLES cgroups
# one by one, each at a random point of the worker's interval.  The bound
# is the whole period (read_pct=100, read_cap_us=1000): the start admits
# the cgroups that what the bound leaves after its estimate buys at a
# cgroup's price (stats/cgroup_price_ns), which under TCG at the default
# bound (100 us) is fewer than the cgroups to come; a match past them is
# skipped (cgroups_skipped) and is a timeout in discostat's figures.
if phase discovery; then
	mkdir -p $CG/disc
	echo "+memory +cpu" > $CG/disc/cgroup.subtree_control
	for d in ${DISC_MS:-1000 500 100}; do
		rmdir $CG/disc/c* 2>/dev/null
		if ! modprobe ksnap metrics=pgfault,memory.current 'cgroups=/disc/c*' \
			discover_ms=$d settle_ms=${DISC_SETTLE:-10} \
			period_us=1000 read_pct=100 read_cap_us=1000 \
			cpu=0 ring_kb=8192; then
			echo "kind=discovery discover_ms=$d error=modprobe" >> $RAW
			continue
		fi
		line=$($B/discostat --dir $CG/disc --samples ${DISC_SAMPLES:-50} --discover-ms $d)
		echo "$line settle_ms=$(cat /sys/module/ksnap/parameters/settle_ms) set_changes=$(stat_of set_changes) cgroups_found=$(stat_of cgroups_found) cgroups_skipped=$(stat_of cgroups_skipped) columns_admitted=$(stat_of columns_admitted) cgroup_price_ns=$(stat_of cgroup_price_ns) missed=$(stat_of missed) taken=$(stat_of taken)" >> $RAW
		rmmod ksnap
		log "discovery discover_ms=$d done"
	done
	rmdir $CG/disc/c* 2>/dev/null
fi

# Width: N cgroups /wide/wI, each read for memory.current and
# cpu.stat.usage, at 20 Hz with a bound wide enough for all (read_pct=50
# of 50 ms, read_cap_us=25000), no reader (8 MiB holds every record), the
# timer on CPU 0; then the poller, on CPU 1, WIDTH_SWEEPS sweeps over the
# same cgroups.  A configuration holds at most 2048 cgroups (the last
# set): a larger one is refused at load (the line says so) and only the
# poller runs.
if phase width; then
	mkdir -p $CG/wide
	echo "+memory +cpu" > $CG/wide/cgroup.subtree_control
	made=0
	for n in ${WIDTH_SETS:-10 100 1000 2000 2048}; do
		while [ $made -lt $n ]; do
			mkdir $CG/wide/w$made
			made=$((made + 1))
		done
		t="cgroups=$n"
		if modprobe ksnap metrics=memory.current,cpu.stat.usage 'cgroups=/wide/w*' \
			period_us=50000 read_pct=50 read_cap_us=25000 cpu=0 ring_kb=8192 2> /tmp/width.err; then
			enable 1
			sleep ${WIDTH_SECONDS:-5}
			enable 0
			echo "kind=width $t cols=$(plan_of columns) taken=$(stat_of taken) lost=$(stat_of lost) missed=$(stat_of missed) read_sum_ns=$(stat_of read_sum_ns) read_max_ns=$(stat_of read_max_ns) read_estimate_ns=$(stat_of read_estimate_ns) read_bound_ns=$(stat_of read_bound_ns) cgroups_skipped=$(stat_of cgroups_skipped)" >> $RAW
			rmmod ksnap
		else
			echo "kind=width $t error=modprobe why=\"$(dmesg | grep ksnap | tail -1 | tr -d '"')\"" >> $RAW
		fi
		$B/cgpoll --dir $CG/wide --prefix w --count $n --sweeps ${WIDTH_SWEEPS:-20} --cpu 1 --tag "$t" >> $RAW
		log "width $n done"
	done
fi

# Node: a container node's collection.  NODE_CGROUPS (550: a node of
# 110 pods) empty cgroups /node/c*, the pod group's counters of each, at
# 100 Hz (docs/containers.md's period), the timer on CPU 0, ksnapd (plain,
# to a file in tmpfs) on CPU 1, NODE_SECONDS (10) measured after 1 s:
# the read per snapshot (stats) and ksnapd's CPU (its schedstat).  The
# bound is the whole period (read_pct=100, read_cap_us=10000): admission
# keeps what a period pays for and counts the rest.  Beside it, a
# cgroupfs poller reads the same counters of every cgroup from their
# files (bench/cgpoll.c --pod, CPU 1), NODE_SWEEPS sweeps.
if phase node; then
	mkdir -p $CG/node
	echo "+memory +cpu" > $CG/node/cgroup.subtree_control
	echo +io > $CG/node/cgroup.subtree_control 2> /dev/null
	n=${NODE_CGROUPS:-550}
	i=0
	while [ $i -lt $n ]; do
		mkdir -p $CG/node/c$i
		i=$((i + 1))
	done
	t="cgroups=$n period_us=10000"
	if modprobe ksnap metrics=pod 'cgroups=/node/c*' period_us=10000 \
		read_pct=100 read_cap_us=10000 cpu=0 2> /tmp/node.err; then
		rm -f /tmp/node.tsv
		taskset -c 1 ksnapd --once --no-wait -o /tmp/node.tsv 2> /tmp/node.log &
		kp=$!
		sleep 0.5
		enable 1
		sleep 1
		read -r c0 _ < /proc/$kp/schedstat
		# The guest's date has no %N: /proc/uptime, in 10 ms.
		t0=$(stat_of taken) r0=$(stat_of read_sum_ns) w0=$(cut -d' ' -f1 /proc/uptime | tr -d .)
		sleep ${NODE_SECONDS:-10}
		read -r c1 _ < /proc/$kp/schedstat
		t1=$(stat_of taken) r1=$(stat_of read_sum_ns) w1=$(cut -d' ' -f1 /proc/uptime | tr -d .)
		enable 0
		wait $kp
		kst=$?
		echo "kind=node $t cols=$(plan_of columns) skipped=$(stat_of cgroups_skipped) taken=$((t1 - t0)) read_sum_ns=$((r1 - r0)) wall_ns=$(((w1 - w0) * 10000000)) ksnapd_cpu_ns=$((c1 - c0)) read_max_ns=$(stat_of read_max_ns) lost=$(stat_of lost) missed=$(stat_of missed) bytes=$(wc -c < /tmp/node.tsv) ksnapd_status=$kst" >> $RAW
		sed "s/^/node ksnapd: /" /tmp/node.log >> /out/e2e.log
		rmmod ksnap
		rm -f /tmp/node.tsv
	else
		echo "kind=node $t error=modprobe why=\"$(dmesg | grep ksnap | tail -1 | tr -d '"')\"" >> $RAW
	fi
	$B/cgpoll --pod --dir $CG/node --prefix c --count $n \
		--sweeps ${NODE_SWEEPS:-20} --cpu 1 --tag "set=node" >> $RAW
	log "node $n done"
fi

# Pause: for each N, a collection of pgfault and memory.current and
# cpu.stat.usage of /pause/p*, started on N-1 cgroups (20 Hz, the bound
# wide enough for all, timer on CPU 0), gains the Nth: one set change of
# N cgroups, whose pause of the timer stats/set_change_pause_max_ns
# gives, beside the periods it made the timer miss.
if phase pause; then
	mkdir -p $CG/pause
	echo "+memory +cpu" > $CG/pause/cgroup.subtree_control
	made=0
	for n in ${PAUSE_SETS:-1 10 100 500 1000 2000}; do
		while [ $made -lt $((n - 1)) ]; do
			mkdir $CG/pause/p$made
			made=$((made + 1))
		done
		t="cgroups=$n"
		if ! modprobe ksnap metrics=pgfault,memory.current,cpu.stat.usage 'cgroups=/pause/p*' \
			period_us=50000 read_pct=50 read_cap_us=25000 cpu=0 2> /tmp/pause.err; then
			echo "kind=pause $t error=modprobe why=\"$(dmesg | grep ksnap | tail -1 | tr -d '"')\"" >> $RAW
			continue
		fi
		enable 1
		m0=$(stat_of missed)
		mkdir $CG/pause/p$made
		made=$((made + 1))
		i=0
		while [ "$(stat_of set_changes)" -lt 1 ] && [ $i -lt 600 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		enable 0
		echo "kind=pause $t cols=$(plan_of columns) set_changes=$(stat_of set_changes) cgroups_found=$(stat_of cgroups_found) cgroups_skipped=$(stat_of cgroups_skipped) pause_max_ns=$(stat_of set_change_pause_max_ns) missed=$(( $(stat_of missed) - m0 )) read_max_ns=$(stat_of read_max_ns) taken=$(stat_of taken)" >> $RAW
		rmmod ksnap
		log "pause $n done"
	done
fi

# Scrape: the ring's loss with and without a scraper on /metrics.
if phase scrape; then
	# The guest's loopback is down until brought up.
	ip link set lo up
	pick 64
	for p in ${SCRAPE_PERIODS:-1000 200}; do
		for sc in 0 1; do
			modprobe ksnap metrics=$MET cgroups=$CGS period_us=$p cpu=0 || continue
			rm -f /tmp/scrape.tsv
			ksnapd --lossy --once --no-wait -o /tmp/scrape.tsv \
				--web.listen-address=127.0.0.1:10109 2> /tmp/scrape.log &
			kp=$!
			sleep 1
			if ! enable 1; then
				kill $kp
				wait $kp
				echo "kind=scrape_loss period_us=$p scraper=$sc error=start" >> $RAW
				rmmod ksnap
				continue
			fi
			if [ $sc = 1 ]; then
				sl=$($B/scrape --port 10109 --rate ${SCRAPE_RATE:-100} --seconds ${SCRAPE_SECONDS:-20} --cpu 1 --gzip)
			else
				sleep ${SCRAPE_SECONDS:-20}
				sl=""
			fi
			enable 0
			wait $kp
			kst=$?
			echo "kind=scrape_loss period_us=$p cols=$(plan_of columns) scraper=$sc taken=$(stat_of taken) lost=$(stat_of lost) missed=$(stat_of missed) ksnapd_status=$kst bytes=$(wc -c < /tmp/scrape.tsv) ${sl#kind=scrape }" >> $RAW
			sed 's/^/scrape ksnapd: /' /tmp/scrape.log | tail -3 >> /out/e2e.log
			rmmod ksnap
			log "scrape period=$p scraper=$sc done"
		done
	done
fi
cat $RAW
