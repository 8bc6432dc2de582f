# SPDX-License-Identifier: MIT
# Guest half of the catalogue test: every counter ksnap offers, checked
# against the kernel's own files.  Run on one kernel with
#   scripts/guest --kernel debian|debug --out DIR -- 'sh /guest/tests/catalogue.sh'
# (or tests/run-guest-tests catalogue once it lists it).
#
# What it does: lists the catalogue (ksnapd --list-metrics); checks
# ksnapd's suggestion for a mistyped name, the groups and the per-CPU
# syntax; then, with a
# memory hog (MIB MiB held) and a CPU spinner running in a test cgroup,
# samples in several runs (at most 256 columns each):
#   vmstat    every /proc/vmstat name ksnap offers (the group "vmstat")
#   system    cpu.*, stat.*, softirqs.*, meminfo.*, loadavg.*, pressure.*,
#             pgfault[cpu] (its columns' sum against /proc/vmstat)
#   cgroup    every per-cgroup metric of the test cgroup
# stops, reads the kernel's files twice at once (after1, after2: one awk
# process each), and compares the last snapshot of ksnapd's stream with
# after1.  Last, a cgroup removed while sampled must be logged once.
#
# Tolerances (all counters keep moving after the stop; d12 is how much a
# key moved between after1 and after2, i.e. what one reader process plus
# the workload cost, and the stop -> after1 gap is the same kind of gap):
#   cumulative, live (VM events, softirqs, interrupts, memory.events):
#       0 <= after1 - ours <= 2*d12 + 64
#   interrupts and softirqs (stat.intr, stat.softirq, softirqs.*) also
#   move with wall time while the host holds a guest CPU back, timer
#   ticks and all: plus their rate in the stream times the time from the
#   stop to after1 (/proc/uptime, 10 ms units) plus 20 ms.  (ksnapd's
#   summary goes to a file, not the serial console: at the stop, its
#   bytes on the serial port were hundreds of interrupts.)
#       0 <= after1 - ours <= 2*d12 + 64 + rate * (gap + 20 ms)
#   CPU times (tick-based, /proc/stat in 10 ms units rounded down):
#       -10 ms <= after1 - ours <= 2*d12 + ncpus*4 ms + 10 ms
#                                  + ncpus * (gap + 20 ms)
#   (every CPU's time from the stop to after1: a loaded host stretches
#   that gap)
#   page state and node events (per-CPU diffs folded about every second:
#   the global value may lag by each CPU's stat threshold, summed over
#   zones and CPUs, /proc/zoneinfo "vm stats threshold"):
#       |after1 - ours| <= sum(thresholds) + 2*d12 + 64   (pages)
#   meminfo: MemTotal exact; MemAvailable as page state, in bytes.
#   loadavg.N: one 5 s update moves the average by at most 8% of its gap
#       to the run queue: |after1 - ours| <= 2*d12 + 10 + 100 + ours/10
#   loadavg.threads: |after1 - ours| <= 2*d12 + 8 (reader processes)
#   memory limits (min, low, high, max, swap.*): exact.
#   memory.current, memory.peak, memory.swap.current (live page counters,
#   per-CPU charge stocks of 64 pages): |diff| <= 2*d12 + ncpus*64 pages
#   memory.stat.* (rstat, flushed every 2 s and possibly by reading the
#   file): bytes |diff| <= 2*d12 + ncpus*64 pages; events 2*d12 + 64
#   memory.working_set (memory.current less memory.stat's inactive_file,
#   from the two files): the sum of their bounds, 2*d12 + 2*ncpus*64 pages
#   cpu.stat.usage (subtree, last flush; reading cpu.stat flushes):
#       -1 us <= after1 - ours <= 2*d12 + ncpus*2.2 s
#   cpu.stat.usage_self (live; the cgroup is a leaf, so the file's
#   usage_usec is the same sum, in us):
#       -1 us <= after1 - ours <= 2*d12 + 1 ms
#   cpu.stat.user, cpu.stat.system (usage split in the ticks' ratio; the
#   file's split from the ratio when read, ours never stepped back):
#       usage's bounds, widened by a tenth of the usage each way; and in
#       every row of ours, user + system = usage exactly
#   pressure totals (aggregated every 2 s; reading the file aggregates;
#   stall time <= wall time):  -1 us <= after1 - ours <= 2*d12 + 2.2 s
TEST=catalogue
. /guest/tests/lib.sh

CGROUP=/ksnapcat
GONE=/ksnapgone
MIB=24
W=/tmp/cat
mkdir -p $W
# Possible CPUs (per-CPU columns are per possible CPU): "0-3" -> 4.
NCPU=$(( $(sed 's/.*[-,]//' /sys/devices/system/cpu/possible) + 1 ))

# The metrics ksnap offers that no file of this kernel shows, to be
# compared with nothing: 5.10 keeps the memcg's watermark, which
# memory.peak shows only since 5.19, and its file and shmem THP counters,
# which its memory.stat does not show.  Any other column without a file
# value fails.
KVER=$(kernel_version)
case "$KVER" in
5.10) NO_FILE_VALUE="memory.peak memory.stat.file_thp memory.stat.shmem_thp" ;;
*) NO_FILE_VALUE="" ;;
esac

mkdir -p "$CG$CGROUP"
if ! modprobe ksnap; then
	fail "module loads" "modprobe status 0" "failure"
	finish
	exit
fi
pass "module loads"

# --- The catalogue ---------------------------------------------------------
ksnapd --list-metrics > $W/available.txt
check "ksnapd --list-metrics exits 0" 0 $?
cp $W/available.txt /out/available_metrics.txt
n=$(wc -l < $W/available.txt)
info "ksnapd --list-metrics: $n metrics on $(uname -r), $(wc -c < $W/available.txt) bytes"
echo "$n" > /out/metric-count.txt
bad=$(awk -F'\t' 'NF != 6 || ($2 != "cumulative" && $2 != "gauge") ||
	($4 !~ /^(live|tick|1s|2s)$/) || ($5 !~ /^(-|cpu|cgroup)$/) { print NR": "$0; exit }' $W/available.txt)
check "every --list-metrics line has 6 well-formed fields" "" "$bad"
check "--header adds one line naming the columns" "name	kind	unit	freshness	field	description" \
	"$(ksnapd --list-metrics --header | head -n 1)"
check "--list-metrics=container: the per-cgroup metrics" \
	"$(awk -F'\t' '$5 == "cgroup" { print $1 }' $W/available.txt)" \
	"$(ksnapd --list-metrics=container | cut -f1)"
check "--list-metrics=cpu: the /proc/stat cpu line's" \
	"$(awk -F'\t' '$1 ~ /^cpu\./ && $5 == "cpu" { print $1 }' $W/available.txt)" \
	"$(ksnapd --list-metrics=cpu | cut -f1)"
# pod: the 13 a node watches first, those this kernel offers, in the
# catalogue's order; memory use, working set and CPU usage on every kernel.
pod="memory.current memory.working_set memory.max memory.swap.current memory.events.high
memory.events.oom_kill memory.stat.anon memory.stat.file cpu.stat.usage
cpu.pressure.some memory.pressure.some memory.pressure.full io.pressure.some"
check "--list-metrics=pod: those of the 13 this kernel offers" \
	"$(awk -F'\t' -v pod="$pod" 'BEGIN { split(pod, p, /[ \n]/); for (i in p) want[p[i]] = 1 }
		$1 in want { print $1 }' $W/available.txt)" \
	"$(ksnapd --list-metrics=pod | cut -f1)"
check_lines "--list-metrics=pod has memory.current" 1 "memory.current	" "$(ksnapd --list-metrics=pod)"
check_lines "--list-metrics=pod has cpu.stat.usage" 1 "cpu.stat.usage	" "$(ksnapd --list-metrics=pod)"
check_lines "--list-metrics=pod has memory.working_set" 1 "memory.working_set	" "$(ksnapd --list-metrics=pod)"
ksnapd --list-metrics=bogus 2> $W/badgroup.err
check "--list-metrics=bogus is a usage error" 2 $?
check_lines "--list-metrics=bogus names the groups" 1 "no group 'bogus' (all, vmstat, cpu, container, pod)" "$(cat $W/badgroup.err)"
[ "$n" -gt 150 ] && pass "more than 150 metrics offered ($n)" ||
	fail "more than 150 metrics offered" "> 150" "$n"

# The /proc/vmstat names ksnap offers, and those it does not.
awk 'NR == FNR { split($0, f, "\t"); have[f[1]] = 1; next }
	{ if ($1 in have) print $1 > "'$W'/vmstat-names"; else print $1 > "'$W'/vmstat-missing" }' \
	$W/available.txt /proc/vmstat
touch $W/vmstat-names $W/vmstat-missing
info "/proc/vmstat items not offered: $(tr '\n' ' ' < $W/vmstat-missing)"
# numa_*: vm_numa_event is not exported; the dirty thresholds are computed
# on read (global_dirty_limits); nr_unstable is a constant 0 kept for
# compatibility; nr_memmap*_pages (6.12) are counters private to
# mm/vmstat.c.
unexpected=$(grep -v -E '^(numa_|nr_dirty_threshold$|nr_dirty_background_threshold$|nr_unstable$|nr_memmap_pages$|nr_memmap_boot_pages$)' $W/vmstat-missing | tr '\n' ' ')
check "every /proc/vmstat item is offered but NUMA events, dirty thresholds, nr_unstable, nr_memmap*" "" "$unexpected"
extra=$(awk 'NR == FNR { have[$1] = 1; next }
	{ split($0, f, "\t") }
	f[5] != "cgroup" && f[1] !~ /\./ && !(f[1] in have) { print f[1] }' /proc/vmstat $W/available.txt | tr '\n' ' ')
check "every bare (vmstat-style) name offered exists in /proc/vmstat" "" "$extra"
check "the group vmstat is the /proc/vmstat names offered" \
	"$(sort $W/vmstat-names | tr '\n' ' ')" \
	"$(ksnapd --list-metrics=vmstat | cut -f1 | sort | tr '\n' ' ')"

# --- Names ------------------------------------------------------------------
klog_mark
e=$(guestprobe write $KSNAP_SYS/metrics pgfalt)
check "an unknown metric is refused" EINVAL "$e"
check_lines "the kernel log names it and the listing" ">0" "unknown metric or group 'pgfalt': ksnapd --list-metrics lists the metrics" "$(klog_since)"
ksnapd --metrics pgfault,pgfalt --no-wait -o /dev/null 2> $W/suggest.err
check "ksnapd --metrics with an unknown name is a usage error" 2 $?
check_lines "ksnapd suggests pgfault for pgfalt" 1 "ksnapd: --metrics: unknown metric 'pgfalt': did you mean pgfault?" "$(cat $W/suggest.err)"
e=$(guestprobe write $KSNAP_SYS/metrics "cpu,pgfault[cpu]")
check "a group with a name: accepted" ok "$e"
check "the group is expanded, the name kept where it is" \
	"$(ksnapd --list-metrics=cpu | cut -f1 | tr '\n' ',')pgfault[cpu]" \
	"$(cat $KSNAP_SYS/metrics)"
e=$(guestprobe write $KSNAP_SYS/metrics "cpu,cpu.user[0]")
check "a name in a group, with a selector: the name's selector wins" ok "$e"
check "it is sampled once, as named" 1 "$(tr ',' '\n' < $KSNAP_SYS/metrics | grep -c '^cpu\.user')"
e=$(guestprobe write $KSNAP_SYS/metrics "nr_free_pages[0]")
check "a CPU selector on a metric without per-CPU values is refused" EINVAL "$e"
e=$(guestprobe write $KSNAP_SYS/metrics "pgfault[$NCPU]")
check "a CPU selector past the possible CPUs is refused" EINVAL "$e"
e=$(guestprobe write $KSNAP_SYS/metrics "pgfault[cpu],cpu.idle[0]")
check "per-CPU selectors are accepted" ok "$e"
check "metrics reads back the selectors" "pgfault[cpu],cpu.idle[0]" "$(cat $KSNAP_SYS/metrics)"

# --- Workload ---------------------------------------------------------------
# No transparent huge pages while the files are compared: one THP fault
# (the file reader's heap, say) between the last row and after1 moves
# nr_anon_pages, the anon LRU and pgalloc by 512 pages at once, beyond
# what the after1 -> after2 gap shows (seen in a guest given 2 GiB, where
# Debian's "always" finds huge pages free).  Restored below.
THP=/sys/kernel/mm/transparent_hugepage/enabled
thp_was=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $THP 2>/dev/null)
[ -n "$thp_was" ] && echo never > $THP
sh -c "echo \$\$ > $CG$CGROUP/cgroup.procs && exec memhog $MIB -" > $W/hog.out 2>&1 &
hog=$!
sh -c "echo \$\$ > $CG$CGROUP/cgroup.procs && while :; do :; done" &
spin=$!
wait_line $W/hog.out resident

# The reader of the kernel's files: "name value" lines named as ksnap's
# metrics, the cgroup's under their plain names.  One process.
cat > $W/read.awk <<'EOF'
function out(k, v) { print k "\t" v; val[k] = v }
FILENAME == "/proc/vmstat" { out($1, $2); next }
FILENAME == "/proc/uptime" { out("uptime", $1); next }
FILENAME == "/proc/stat" {
	if ($1 == "cpu") {
		split("user nice system idle iowait irq softirq steal guest guest_nice", n, " ")
		for (i = 2; i <= NF; i++) out("cpu." n[i - 1], $i * 10000000)
	} else if ($1 == "intr") {
		s = 0; for (i = 3; i <= NF; i++) s += $i
		out("stat.intr", s)
	} else if ($1 == "softirq") out("stat.softirq", $2)
	next
}
FILENAME == "/proc/softirqs" {
	if (FNR == 1) next
	s = 0; for (i = 2; i <= NF; i++) s += $i
	k = $1; sub(/:$/, "", k); out("softirqs." k, s); next
}
FILENAME == "/proc/meminfo" {
	k = $1; sub(/:$/, "", k); out("meminfo." k, $2 * 1024); next
}
FILENAME == "/proc/loadavg" {
	out("loadavg.1", $1 * 1000); out("loadavg.5", $2 * 1000)
	out("loadavg.15", $3 * 1000)
	split($4, t, "/"); out("loadavg.threads", t[2]); next
}
FILENAME ~ /^\/proc\/pressure\// {
	r = FILENAME; sub(/.*\//, "", r)
	for (i = 2; i <= NF; i++) if ($i ~ /^total=/) { v = $i; sub(/total=/, "", v) }
	out("pressure." r "." $1, v * 1000); next
}
FILENAME ~ /\.pressure$/ {
	r = FILENAME; sub(/.*\//, "", r)
	for (i = 2; i <= NF; i++) if ($i ~ /^total=/) { v = $i; sub(/total=/, "", v) }
	out(r "." $1, v * 1000); next
}
FILENAME ~ /\/cpu\.stat$/ {
	if ($1 == "usage_usec") { out("cpu.stat.usage", $2 * 1000); out("cpu.stat.usage_self", $2 * 1000) }
	if ($1 == "user_usec") out("cpu.stat.user", $2 * 1000)
	if ($1 == "system_usec") out("cpu.stat.system", $2 * 1000)
	next
}
FILENAME ~ /\/memory\.(stat|events|swap\.events)$/ {
	r = FILENAME; sub(/.*\//, "", r); out(r "." $1, $2); next
}
FILENAME ~ /\/memory\.[a-z.]+$/ {
	r = FILENAME; sub(/.*\//, "", r); out(r, ($1 == "max" ? "max" : $1)); next
}
FILENAME == "/proc/zoneinfo" {
	if ($0 ~ /stats threshold:/) thr += $NF	# one line per zone and CPU
	next
}
END {
	out("zoneinfo.stats_threshold_sum", thr)
	# cAdvisor's working set, from the two files
	if (("memory.current" in val) && ("memory.stat.inactive_file" in val)) {
		ws = val["memory.current"] - val["memory.stat.inactive_file"]
		out("memory.working_set", ws < 0 ? 0 : ws)
	}
}
EOF
FILES="/proc/vmstat /proc/stat /proc/softirqs /proc/meminfo /proc/loadavg /proc/zoneinfo"
# (/proc/uptime is read last: the time after1 was complete)
for f in /proc/pressure/cpu /proc/pressure/memory /proc/pressure/io /proc/pressure/irq; do
	[ -r $f ] && cat $f > /dev/null 2>&1 && FILES="$FILES $f"
done
for f in current min low high max peak swap.current swap.high swap.max \
	events swap.events stat; do
	[ -f "$CG$CGROUP/memory.$f" ] && FILES="$FILES $CG$CGROUP/memory.$f"
done
for f in $CG$CGROUP/cpu.stat $CG$CGROUP/*.pressure; do
	[ -f "$f" ] && cat "$f" > /dev/null 2>&1 && FILES="$FILES $f"
done

# The comparison: ours (last row of the stream), after1, after2, the
# catalogue; prints ok / not ok lines.
cat > $W/compare.awk <<'EOF'
function abs(x) { return x < 0 ? -x : x }
function verdict(k, ok, why) {
	if (ok) { npass++; if (verbose) print "ok - " test ": " k " " why }
	else { print "not ok - " test ": " k " matches the kernel's file: expected " why; nfail++ }
}
FILENAME == cat { kind[$1] = $2; fresh[$1] = $4; field[$1] = $5; next }
FILENAME == a1 { v1[$1] = $2; next }
FILENAME == a2 { v2[$1] = $2; next }
FILENAME == stream {
	if ($1 == "Time (ns)") { for (i = 2; i <= NF; i++) col[i] = $i; ncol = NF; next }
	if ($1 ~ /^[0-9]+$/ && ncol) {
		if (!rows) { t_first = $1; for (i = 2; i <= NF; i++) first[i] = $i }
		t_last = $1
		for (i = 2; i <= NF; i++) last[i] = $i
		rows++
	}
	next
}
END {
	page = 4096; thr = v1["zoneinfo.stats_threshold_sum"] + 0
	fold = thr + 64		# thr: sum over zones and CPUs already
	for (i = 2; i <= ncol; i++) {
		k = col[i]; sub(/\[.*\]$/, "", k)
		ours = last[i]
		# A column that read 0 throughout, or never changed, agrees with
		# any file that does the same: counted, so that a kernel whose
		# counters all read 0 cannot pass.
		if (rows > 1 && last[i] != first[i] && last[i] != 0) moved++
		if (col[i] ~ /\[[0-9]+\]$/) { percpu[k] += ours; continue }
		if (!(k in v1)) { print "# " test ": " col[i] ": no value in the kernel's files to compare with"; print k > skipped; nskip++; continue }
		f = v1[k]; d12 = abs(v2[k] - v1[k]); d = f - ours
		if (f == "max" || ours == "18446744073709551615") {
			verdict(k, f == "max" && ours == "18446744073709551615", "max (U64_MAX), got file " f " ours " ours)
			continue
		}
		if (k ~ /^memory\.(min|low|high|max|swap\.high|swap\.max)$/ || k == "meminfo.MemTotal") {
			verdict(k, d == 0, "exactly " f ", got " ours); continue
		}
		if (k ~ /^cpu\.stat\.usage$/) { lo = -1000; hi = 2 * d12 + ncpu * 2200000000 }
		else if (k ~ /^cpu\.stat\.usage_self$/) { lo = -1000; hi = 2 * d12 + 1000000 }
		else if (k ~ /^cpu\.stat\.(user|system)$/) {
			# usage's, and the file's split is from the ticks' ratio
			# now while ours never stepped back as the ratio moved:
			# a tenth of the usage for that (the workload is steady)
			u = v1["cpu.stat.usage"] / 10
			lo = -1000 - u; hi = 2 * d12 + ncpu * 2200000000 + u
		}
		else if (k ~ /pressure/) { lo = -1000; hi = 2 * d12 + 2200000000 }
		else if (k ~ /^cpu\./) {
			# and at most every CPU's time from the last row to
			# after1 (a loaded host can stretch that gap)
			lo = -10000000
			hi = int(2 * d12 + ncpu * 4000000 + 10000000 + ncpu * ((v1["uptime"] - stop_uptime) * 1e9 + 20e6))
		}
		else if (k ~ /^loadavg\.[0-9]+$/) { hi = 2 * d12 + 110 + ours / 10; lo = -hi }
		else if (k == "loadavg.threads") { hi = 2 * d12 + 8; lo = -hi }
		else if (k == "meminfo.MemAvailable") { hi = fold * page + 2 * d12; lo = -hi }
		else if (k ~ /^memory\.(current|peak|swap\.current)$/) { hi = 2 * d12 + ncpu * 64 * page; lo = -hi }
		else if (k == "memory.working_set") { hi = 2 * d12 + 2 * ncpu * 64 * page; lo = -hi }
		else if (k ~ /^memory\.stat\./) {
			if (kind[k] == "cumulative") { hi = 2 * d12 + 64 } else hi = 2 * d12 + ncpu * 64 * page
			lo = -hi
		}
		else if (fresh[k] == "1s") { hi = fold + 2 * d12; lo = -hi }
		else if (k ~ /^(stat\.intr|stat\.softirq|softirqs\.)/) {
			# per ns, as moved during the collection; gap in ns
			rate = t_last > t_first ? (last[i] - first[i]) / (t_last - t_first) : 0
			gap = (v1["uptime"] - stop_uptime) * 1e9 + 20e6
			lo = 0; hi = int(2 * d12 + 64 + rate * gap)
		}
		else if (kind[k] == "cumulative") { lo = 0; hi = 2 * d12 + 64 }
		else { hi = 2 * d12 + 64; lo = -hi }
		verdict(k, d >= lo && d <= hi, "file - ours in [" lo ", " hi "], got file " f " ours " ours " (d12 " d12 ")")
	}
	# A metric is either summed or per CPU in one collection (the
	# stream's metadata gives it the cpu field or not): the per-CPU
	# columns' sum is compared with the file, as a cumulative counter.
	for (k in percpu) {
		if (!(k in v1)) { print "# " test ": " k "[cpu]: no value in the kernel's files to compare with"; print k "[cpu]" > skipped; nskip++; continue }
		d12 = abs(v2[k] - v1[k]); d = v1[k] - percpu[k]
		verdict(k "[cpu]", d >= 0 && d <= 2 * d12 + 64, "file - sum of the per-CPU columns in [0, " 2 * d12 + 64 "], got file " v1[k] " sum " percpu[k] " (d12 " d12 ")")
	}
	printf "# %s: %d columns compared, %d ok, %d not ok, %d without a file value, %d moved (nonzero, changed during the run), %d rows\n", test, ncol - 1, npass, nfail, nskip, moved, rows
	print npass + 0, nfail + 0, moved + 0 > summary
}
EOF

# run NAME METRICS CGROUPS MOVED: one collection, stop, read the files,
# compare; at least MOVED of its columns must be nonzero and change during
# the collection (the hog and the spinner make sure of that).
run() {
	name=$1 list=$2 cgs=$3 want_moved=$4
	echo 0 > $KSNAP_SYS/enable
	guestprobe write $KSNAP_SYS/cgroups "$cgs" > /dev/null
	e=$(guestprobe write $KSNAP_SYS/metrics "$list")
	check "$name: the selection is accepted ($(echo "$list" | tr ',' '\n' | wc -l) metrics)" ok "$e"
	[ "$e" = ok ] || return
	e=$(guestprobe write $KSNAP_SYS/enable 1)
	check "$name: sampling starts" ok "$e"
	# Not --once: ksnapd exiting (unmapping, freeing) between the stop
	# and after1 would be activity the after1 -> after2 gap lacks.
	# Its summary goes to a file: written to the serial console at the
	# stop, its few hundred bytes were as many interrupts between the last
	# snapshot and after1 (stat.intr 381 ahead on 6.12-rt, 348 in CI).
	ksnapd -o $W/$name.tsv 2> $W/$name.ksnapd.err &
	kpid=$!
	wait_attached
	wait_rows $W/$name.tsv 10
	# The catalogue, read while ksnapd reads the ring, leaves it alone.
	check "$name: --list-metrics beside a running ksnapd" "$n" \
		"$(ksnapd --list-metrics | wc -l)"
	# Freeze the CPU spinner first: its cgroup's live CPU time would go on
	# rising between the last snapshot and after1, by as much as the host
	# happens to delay the guest (seen: 320 ms on a loaded host).
	kill -STOP $spin
	wait_for "the spinner is stopped" $WAIT_S proc_state $spin T
	# The shell's own write: a helper process alive at the last snapshot
	# and gone at after1 would show as unmapped pages.
	read -r stop_uptime _ < /proc/uptime
	echo 0 > $KSNAP_SYS/enable
	awk -f $W/read.awk $FILES /proc/uptime > $W/$name.after1 2>/dev/null
	awk -f $W/read.awk $FILES /proc/uptime > $W/$name.after2 2>/dev/null
	kill -CONT $spin
	# ksnapd has written the collection out (then SIGTERM ends it while
	# it waits for the next).
	wait_line $W/$name.tsv "STATS	"
	kill $kpid
	wait_pid $kpid $WAIT_S
	check "$name: ksnapd exits 0 on SIGTERM" 0 $?
	cat $W/$name.ksnapd.err >&2
	cp $W/$name.tsv $W/$name.after1 $W/$name.after2 /out/ 2>/dev/null
	: > $W/$name.skipped
	awk -F'\t' -v test="$TEST: $name" -v ncpu=$NCPU -v cat=$W/available.txt \
		-v a1=$W/$name.after1 -v a2=$W/$name.after2 -v stream=$W/$name.tsv \
		-v summary=$W/$name.summary -v skipped=$W/$name.skipped \
		-v stop_uptime=$stop_uptime \
		-f $W/compare.awk $W/available.txt $W/$name.after1 $W/$name.after2 $W/$name.tsv |
		tee -a $W/compare.log
	set -- $(cat $W/$name.summary)
	npass=${1:-0} nf=${2:-1} moved=${3:-0}
	without=$(sort -u $W/$name.skipped | awk '{ printf "%s%s", s, $0; s = " " }')
	info "$name: sampled without a file value: ${without:-none}"
	new=$(sort -u $W/$name.skipped | awk -v known="$NO_FILE_VALUE" '
		BEGIN { n = split(known, k, " "); for (i = 1; i <= n; i++) ok[k[i]] = 1 }
		!($0 in ok) { printf "%s%s", s, $0; s = " " }')
	check "$name: every column without a file value to compare with is one known to have none on $KVER (${NO_FILE_VALUE:-none})" "" "$new"
	if [ "$nf" -eq 0 ] && [ "$npass" -gt 0 ]; then
		pass "$name: all $npass compared columns within their tolerance"
	else
		fail "$name: every compared column within its tolerance" "0 out of tolerance" "$nf out of tolerance, $npass within"
	fi
	if [ "$moved" -ge "$want_moved" ]; then
		pass "$name: $moved columns were nonzero and changed during the collection (at least $want_moved)"
	else
		fail "$name: at least $want_moved columns nonzero and changing during the collection" ">= $want_moved" "$moved"
	fi
}
# The after files use a space between name and value.

run vmstat vmstat "" 5

system=$(awk -F'\t' '$1 ~ /^(cpu|stat|softirqs|meminfo|loadavg|pressure)\./ && $5 != "cgroup" { printf "%s%s", s, $1; s = "," }' $W/available.txt)
run system "$system,pgfault[cpu]" "" 5

cgm=$(awk -F'\t' '$5 == "cgroup" { printf "%s%s", s, $1; s = "," }' $W/available.txt)
run cgroup "$cgm" "$CGROUP" 2
# cpu.stat.user and cpu.stat.system split cpu.stat.usage: they sum to it
# in every row (neither steps back, and a usage held from stepping back
# leaves them as they were).
split_bad=$(awk -F'\t' '
	/^Time \(ns\)/ { for (i = 2; i <= NF; i++) {
			if ($i ~ /^cpu\.stat\.usage\[/) u = i
			if ($i ~ /^cpu\.stat\.user\[/) us = i
			if ($i ~ /^cpu\.stat\.system\[/) sy = i }
		next }
	/^[0-9]+\t/ && u && us && sy { n++
		if ($us + $sy != $u) { print "row " n ": user " $us " + system " $sy " is not usage " $u; exit } }
	END { if (!n) print "no row with the three columns" }' $W/cgroup.tsv)
check "cgroup: cpu.stat.user + cpu.stat.system is cpu.stat.usage in every row" "" "$split_bad"

# metrics=pod on one cgroup: a column for each metric the group lists.
echo 0 > $KSNAP_SYS/enable
guestprobe write $KSNAP_SYS/cgroups "$CGROUP" > /dev/null
check "metrics=pod is accepted" ok "$(guestprobe write $KSNAP_SYS/metrics pod)"
check "metrics=pod: one column per metric of --list-metrics=pod" \
	"$(ksnapd --list-metrics=pod | wc -l)" "$(ksnap_plan columns)"

kill $hog $spin 2>/dev/null
wait $hog $spin 2>/dev/null
[ -n "$thp_was" ] && echo "$thp_was" > $THP
cp $W/compare.log /out/ 2>/dev/null

# --- A cgroup removed while sampled -----------------------------------------
mkdir -p "$CG$GONE"
guestprobe write $KSNAP_SYS/cgroups "$GONE" > /dev/null
e=$(guestprobe write $KSNAP_SYS/metrics "memory.current,cpu.stat.usage_self,pgfault")
check "removal: the selection is accepted" ok "$e"
klog_mark
guestprobe write $KSNAP_SYS/enable 1 > /dev/null
ksnapd --once -o $W/gone.tsv &
kpid=$!
wait_attached
wait_samples 10
rmdir "$CG$GONE"
check "removal: rmdir of a sampled cgroup succeeds" 0 $?
# Sampled after the removal: the sampler has seen it gone.
wait_samples 10
guestprobe write $KSNAP_SYS/enable 0 > /dev/null
wait_pid $kpid $WAIT_S
check "removal: ksnapd exits 0" 0 $?
check_lines "removal: one kernel log line names the removed cgroup" 1 "'$GONE' was removed while sampled" "$(klog_since)"
# A metrics write keeps the cgroups it has (it resolves no path again), so
# it works while a configured cgroup is gone.
e=$(guestprobe write $KSNAP_SYS/metrics "memory.current,pgfault")
check "removal: metrics can be rewritten while a configured cgroup is gone" ok "$e"
check "removal: cgroups still names the removed cgroup" "$GONE" "$(cat $KSNAP_SYS/cgroups)"
e=$(guestprobe write $KSNAP_SYS/enable 1)
check "removal: a new collection on the removed cgroup starts" ok "$e"
wait_samples 10
guestprobe write $KSNAP_SYS/enable 0 > /dev/null
check_lines "removal: still one log line after another collection" 1 "'$GONE' was removed while sampled" "$(klog_since)"
rmmod ksnap
check "rmmod after the collections" 0 $?
rmdir "$CG$CGROUP" 2>/dev/null
finish
