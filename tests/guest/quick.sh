# SPDX-License-Identifier: MIT
# Guest half of the quick test (make check-quick): the core behaviours in
# one collection, in seconds.
#   load       ksnap loads with a summed VM event, a gauge and a cgroup's
#              page counter, on a test cgroup, its cgroup event probes
#              attached
#   sample     ksnapd --lossy records while a process in the cgroup faults
#              pages in and frees them
#   stop       writing 0 to enable stops; the stream gets its STATS line
#   /proc      the stop's snapshot (the last row) against /proc/vmstat and
#              the cgroup's memory.current read right after, with the
#              catalogue test's tolerances (d12: how much a value moved
#              between two reads of the files just after the stop;
#              nr_free_pages also what the per-CPU free lists held)
#   identity   rows == STATS taken - lost, the module's figures too
#   verify     ksnap-verify accepts the lossy stream (exit 0), its
#              checksums and all
#   refresh    a CPU time's column says the kernel's tick, a VM event's 0
TEST=quick
. /guest/tests/lib.sh

CGROUP=/quick
METRICS=pgfault,nr_free_pages,memory.current
PREFIX=$(printf 'GVISOR_METRICS\t')
W=/tmp/quick
mkdir -p $W "$CG$CGROUP"
NCPU=$(( $(sed 's/.*[-,]//' /sys/devices/system/cpu/possible) + 1 ))

if ! modprobe ksnap metrics=$METRICS cgroups=$CGROUP period_us=1000; then
	fail "module loads with metrics=$METRICS cgroups=$CGROUP" "modprobe status 0" "failure"
	dmesg | tail -n 5
	finish
	exit
fi
pass "module loads with metrics=$METRICS cgroups=$CGROUP"
# The cgroup events that start a rescan (discover.sh): the module finds its
# tracepoints by name on every kernel, or logs that it falls back.
check "the module attached its cgroup event probes (no fallback in the log)" "" \
	"$(dmesg | grep -o 'no probe on the tracepoint [a-z_]*')"

ksnapd --lossy -o /out/quick.log 2> /out/quick.err &
kpid=$!
wait_attached
check "writing 1 to enable starts sampling" ok "$(guestprobe write $KSNAP_SYS/enable 1)"
wait_rows /out/quick.log 20
sh -c "echo \$\$ > $CG$CGROUP/cgroup.procs && exec memhog 16 1" > /dev/null 2>&1
check "a process in $CGROUP faulted 16 MiB in and exited" 0 $?
wait_samples 20

# One process reads every file at once: after1 right after the stop,
# after2 right after it (their difference is the files' own drift).
cat > $W/read.awk <<'EOF'
FILENAME == "/proc/vmstat" { print $1 "\t" $2; next }
FILENAME ~ /memory\.current$/ { print "memory.current\t" $1; next }
FILENAME == "/proc/zoneinfo" {
	if ($0 ~ /stats threshold:/) thr += $NF
	else if ($1 == "count:") pcp += $2
	else if ($1 == "batch:") batch += $2
	next
}
END { print "stats_threshold_sum\t" thr; print "pcp_count_sum\t" pcp; print "pcp_batch_sum\t" batch }
EOF
FILES="/proc/vmstat $CG$CGROUP/memory.current /proc/zoneinfo"
# The per-CPU lists just before the stop (below).
awk -f $W/read.awk /proc/zoneinfo > $W/before1
echo 0 > $KSNAP_SYS/enable
awk -f $W/read.awk $FILES > $W/after1
awk -f $W/read.awk $FILES > $W/after2
check "enable reads 0 after the stop" 0 "$(cat $KSNAP_SYS/enable)"
wait_for "the stream's STATS line" $WAIT_S has_line /out/quick.log "STATS	"
kill $kpid
wait_pid $kpid $WAIT_S
check "ksnapd exits 0 on SIGTERM once the collection is written" 0 $?
ksnap_dump stats > /out/sysfs-stats.txt

# The last row against the files.
awk -F'\t' -v test=$TEST -v ncpu=$NCPU -v prefix="$PREFIX" '
function abs(x) { return x < 0 ? -x : x }
FILENAME ~ /before1$/ { v0[$1] = $2; next }
FILENAME ~ /after1$/ { v1[$1] = $2; next }
FILENAME ~ /after2$/ { v2[$1] = $2; next }
{
	if (index($0, prefix) == 1) $0 = substr($0, length(prefix) + 1)
	if ($1 == "Time (ns)") { for (i = 2; i <= NF; i++) col[i] = $i; ncol = NF; next }
	if ($1 ~ /^[0-9]+$/ && ncol) { for (i = 2; i <= ncol; i++) last[i] = $i; rows++ }
}
END {
	page = 4096; fold = v1["stats_threshold_sum"] + 64
	# Free pages on the per-CPU lists are not nr_free_pages: the kernel
	# drains the lists to the buddy lists (and refills them, a batch at
	# a time) when it decides; since pcp high auto-tuning (6.7) every
	# vmstat update (1 s) drains some of what a large free (memhog
	# exiting) left there.  What was on them about the stop, and a batch
	# each, may have moved between the last row and after1.
	pcp = v0["pcp_count_sum"] > v1["pcp_count_sum"] ? v0["pcp_count_sum"] : v1["pcp_count_sum"]
	pcp += v1["pcp_batch_sum"]
	print "# " test ": per-CPU free lists: " v0["pcp_count_sum"] " pages before the stop, " v1["pcp_count_sum"] " after, batches " v1["pcp_batch_sum"]
	for (i = 2; i <= ncol; i++) {
		k = col[i]; sub(/\[.*\]$/, "", k)
		if (!(k in v1)) continue
		f = v1[k]; ours = last[i]; d12 = abs(v2[k] - v1[k]); d = f - ours
		if (k == "pgfault") { lo = 0; hi = 2 * d12 + 64 }
		else if (k == "nr_free_pages") { hi = fold + pcp + 2 * d12; lo = -hi }
		else { hi = 2 * d12 + ncpu * 64 * page; lo = -hi }
		ok = (ours != "" && d >= lo && d <= hi)
		printf "%s - %s: %s of the last row matches the kernel'"'"'s file%s\n", ok ? "ok" : "not ok", test, col[i],
			ok ? " (file " f ", ours " ours ", within +-" hi ")" : ": expected file - ours in [" lo ", " hi "], got file " f " ours " ours
		n++
	}
	if (n != 3) print "not ok - " test ": the stream has the 3 columns asked for: expected 3, got " n + 0
}' $W/before1 $W/after1 $W/after2 /out/quick.log > $W/compare.txt
cat $W/compare.txt
cat $W/compare.txt >> /out/results.txt
nfail=$((nfail + $(grep -c '^not ok' $W/compare.txt)))

r=$(rows /out/quick.log)
taken=$(grep 'STATS	' /out/quick.log | tail -n 1 | sed -n 's/.*"ksnap_snapshots_taken":\([0-9]*\).*/\1/p')
lost=$(grep 'STATS	' /out/quick.log | tail -n 1 | sed -n 's/.*"ksnap_snapshots_lost":\([0-9]*\).*/\1/p')
info "$r rows, taken $taken, lost $lost"
check "rows == STATS ksnap_snapshots_taken - ksnap_snapshots_lost" "$((${taken:-0} - ${lost:-0}))" "$r"
check "the module's stats agree: taken" "$taken" "$(ksnap_stat taken)"
check "the module's stats agree: lost" "$lost" "$(ksnap_stat lost)"

ksnap-verify /out/quick.log > /out/quick.verify 2>&1
st=$?
check "ksnap-verify accepts the lossy stream ($(tail -n 1 /out/quick.verify))" 0 $st
[ $st -eq 0 ] || show "$(head -n 20 /out/quick.verify)"

rmmod ksnap
check "rmmod after the collection" 0 $?

# Each column says how often the kernel updates its value: a tick (1/HZ,
# which userspace cannot learn otherwise) for a CPU time, 0 for a VM event
# read live.  ksnapd takes its peak rates over ten of them.
modprobe ksnap metrics=cpu.user,pgfault
check_in "refresh: cpu.user's refresh_ns is a tick at HZ 100, 250, 300 or 1000" \
	"$(guestprobe column cur 0 | sed -n 's/^refresh_ns //p')" \
	10000000 4000000 3333333 1000000
check "refresh: pgfault's refresh_ns is 0 (read live)" 0 \
	"$(guestprobe column cur 1 | sed -n 's/^refresh_ns //p')"
rmmod ksnap
rmdir "$CG$CGROUP"
finish
