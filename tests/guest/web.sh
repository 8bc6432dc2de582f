# SPDX-License-Identifier: MIT
# Guest half of the OpenMetrics endpoint's test: ksnapd --web.listen-address
# beside its output file, fetched with busybox wget over the loopback
# interface (brought up here: the guest's init leaves it down).
#   idle       before any collection /metrics answers: the self-metrics,
#              ksnap_collection_running 0, no collection's series
#   paths      / is the landing page; another path 404
#   families   during a collection: the counter, its peak rate, the
#              gauges with their window maximum and minimum, the cgroup's
#              series with its label; OpenMetrics on request, ending in
#              "# EOF"; the same families gzipped when asked
#   window     after the collection, the window maximum and minimum of
#              the cgroup's memory.current equal the largest and smallest
#              value of every row of the written stream (the window, 10
#              minutes, covers the whole collection)
#   identity   the file's rows == STATS taken - lost, and the endpoint's
#              ksnap_snapshots_taken_total and _lost_total are STATS's
#   removed    a second ksnapd with a 6 s window: a cgroup removed during
#              the collection leaves /metrics once the window has passed,
#              the other cgroup's series stay
TEST=web
. /guest/tests/lib.sh

CGROUP=/web
GONE=/webgone
METRICS=pgfault,nr_free_pages,memory.current
PORT=10109
URL=http://127.0.0.1:$PORT
W=/tmp/web
mkdir -p $W "$CG$CGROUP" "$CG$GONE"

ip link set lo up
check "the loopback interface is up with 127.0.0.1" 1 \
	"$(ip addr show lo | grep -c 'inet 127\.0\.0\.1/')"

# scrape FILE [HEADER]: GET /metrics into FILE; wget's status.
scrape() {
	if [ -n "${2:-}" ]; then
		wget -q --header "$2" -O "$1" "$URL/metrics"
	else
		wget -q -O "$1" "$URL/metrics"
	fi
}

# value NAME FILE: the value of the sample NAME (with its labels, fixed).
value() {
	grep -F "$1 " "$2" | grep -v '^#' | head -n 1 | sed 's/.* //'
}

stat_of() {
	grep 'STATS	' "$2" | tail -n 1 | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"
}

# gone_from FILE: a scrape into FILE has no series of the removed cgroup.
gone_from() {
	scrape "$1" || return 1
	_n=$(grep -c "cgroup=\"$GONE\"" "$1")
	echo "$_n series of $GONE"
	[ "$_n" = 0 ]
}

if ! modprobe ksnap metrics=$METRICS cgroups=$CGROUP,$GONE period_us=1000; then
	fail "module loads with metrics=$METRICS cgroups=$CGROUP,$GONE" "modprobe status 0" "failure"
	finish
	exit
fi
pass "module loads with metrics=$METRICS cgroups=$CGROUP,$GONE"

ksnapd -o /out/web.tsv --web.listen-address --web.window 10m 2> /out/web.err &
kpid=$!
wait_attached
wait_line /out/web.err "serving /metrics"

# --- idle ----------------------------------------------------------------
scrape /out/idle.prom
check "/metrics answers before any collection (wget status)" 0 $?
check "idle: ksnap_collection_running 0" 0 "$(value ksnap_collection_running /out/idle.prom)"
check "idle: ksnap_web_window_seconds 600" 600 "$(value ksnap_web_window_seconds /out/idle.prom)"
check "idle: no collection's series" 0 "$(grep -c '^ksnap_vmstat' /out/idle.prom)"
check "idle: ksnap_build_info" 1 "$(grep -c '^ksnap_build_info{version=' /out/idle.prom)"

# --- paths ---------------------------------------------------------------
wget -q -O $W/landing.html "$URL/"
check "/ answers (wget status)" 0 $?
check "/ links /metrics" 1 "$(grep -c 'href="/metrics"' $W/landing.html)"
wget -O $W/nope "$URL/nope" > $W/nope.err 2>&1
check "another path is 404" 1 "$(grep -c '404' $W/nope.err)"

# --- families ------------------------------------------------------------
check "writing 1 to enable starts sampling" ok "$(guestprobe write $KSNAP_SYS/enable 1)"
wait_rows /out/web.tsv 20
sh -c "echo \$\$ > $CG$CGROUP/cgroup.procs && exec memhog 16 1" > /dev/null 2>&1
check "a process in $CGROUP faulted 16 MiB in and exited" 0 $?
wait_samples 20
scrape /out/running.prom
check "/metrics answers during the collection (wget status)" 0 $?
check "running: ksnap_collection_running 1" 1 "$(value ksnap_collection_running /out/running.prom)"
for fam in "# TYPE ksnap_vmstat_pgfault_total counter" \
	   "# TYPE ksnap_vmstat_pgfault_window_max_rate gauge" \
	   "# TYPE ksnap_vmstat_nr_free_pages gauge" \
	   "# TYPE ksnap_vmstat_nr_free_pages_window_max gauge" \
	   "# TYPE ksnap_vmstat_nr_free_pages_window_min gauge" \
	   "# TYPE ksnap_cgroup_memory_current_bytes gauge" \
	   "# TYPE ksnap_cgroup_memory_current_window_max_bytes gauge" \
	   "# TYPE ksnap_cgroup_memory_current_window_min_bytes gauge" \
	   "# TYPE ksnap_snapshots_taken_total counter" \
	   "# TYPE ksnap_snapshots_lost_total counter" \
	   "# TYPE ksnap_snapshots_missed_total counter"; do
	check "running: '$fam'" 1 "$(grep -c -x -F "$fam" /out/running.prom)"
done
check "running: the cgroup's series has its label" 1 \
	"$(grep -c '^ksnap_cgroup_memory_current_bytes{cgroup="/web"} [0-9]*$' /out/running.prom)"
scrape /out/running.om "Accept: application/openmetrics-text; version=1.0.0"
check "OpenMetrics on request: ends in # EOF" "# EOF" "$(tail -n 1 /out/running.om)"
check "OpenMetrics: the counter's family without _total" 1 \
	"$(grep -c -x -F '# TYPE ksnap_vmstat_pgfault counter' /out/running.om)"
check "OpenMetrics: the unit of the window maximum" 1 \
	"$(grep -c -x -F '# UNIT ksnap_cgroup_memory_current_window_max_bytes bytes' /out/running.om)"
wget -q --header "Accept-Encoding: gzip" -O $W/running.gz "$URL/metrics"
check "gzip on request: the body unzips" 0 "$(gunzip -c $W/running.gz > $W/running.unz 2>&1; echo $?)"
check "gzip: the same families" \
	"$(grep -c '^# TYPE' /out/running.prom)" "$(grep -c '^# TYPE' $W/running.unz)"

# --- window --------------------------------------------------------------
echo 0 > $KSNAP_SYS/enable
wait_line /out/web.tsv "STATS	"
scrape /out/ended.prom
check "/metrics answers after the collection (wget status)" 0 $?
check "ended: ksnap_collection_running 0" 0 "$(value ksnap_collection_running /out/ended.prom)"
# The stream's largest and smallest memory.current[/web].
awk -F'\t' '
$1 == "Time (ns)" { for (i = 2; i <= NF; i++) if ($i == "memory.current[/web]") c = i; next }
c && $1 ~ /^[0-9]+$/ { v = $c + 0; if (n == 0 || v > max) max = v; if (n == 0 || v < min) min = v; n++ }
END { printf "%d %.0f %.0f\n", n, max, min }' /out/web.tsv > $W/stream
read -r n smax smin < $W/stream
info "stream: $n rows of memory.current[/web], max $smax, min $smin"
wmax=$(value 'ksnap_cgroup_memory_current_window_max_bytes{cgroup="/web"}' /out/ended.prom)
wmin=$(value 'ksnap_cgroup_memory_current_window_min_bytes{cgroup="/web"}' /out/ended.prom)
check "the window maximum is the stream's largest memory.current[/web]" "$smax" "$wmax"
check "the window minimum is the stream's smallest memory.current[/web]" "$smin" "$wmin"
ge "the window maximum holds the 16 MiB the process faulted in" "${wmax:-0}" $((16 * 1048576))
ge "the counter's peak rate is there" \
	"$(value ksnap_vmstat_pgfault_window_max_rate /out/ended.prom | sed 's/[.e].*//')" 1

# --- identity ------------------------------------------------------------
taken=$(stat_of ksnap_snapshots_taken /out/web.tsv)
lost=$(stat_of ksnap_snapshots_lost /out/web.tsv)
check "rows == STATS taken - lost" "$((${taken:-0} - ${lost:-0}))" "$(rows /out/web.tsv)"
check "ksnap_snapshots_taken_total == STATS ksnap_snapshots_taken" "$taken" \
	"$(value ksnap_snapshots_taken_total /out/ended.prom)"
check "ksnap_snapshots_lost_total == STATS ksnap_snapshots_lost" "$lost" \
	"$(value ksnap_snapshots_lost_total /out/ended.prom)"

kill $kpid
wait_pid $kpid $WAIT_S
check "ksnapd exits 0 on SIGTERM" 0 $?
ksnap-verify /out/web.tsv > /out/web.verify 2>&1
check "ksnap-verify accepts the stream" 0 $?

# --- removed -------------------------------------------------------------
ksnapd -o /out/web-gone.tsv --web.listen-address --web.window 6s 2> /out/web-gone.err &
kpid=$!
wait_attached
wait_line /out/web-gone.err "serving /metrics"
check "removed: writing 1 to enable starts sampling" ok "$(guestprobe write $KSNAP_SYS/enable 1)"
wait_rows /out/web-gone.tsv 20
scrape /out/gone-before.prom
check "removed: $GONE's memory.current is there while it exists" 1 \
	"$(grep -c "^ksnap_cgroup_memory_current_bytes{cgroup=\"$GONE\"}" /out/gone-before.prom)"
rmdir "$CG$GONE"
check "removed: rmdir $GONE" 0 $?
check_wait "removed: $GONE's series leave /metrics once the window has passed" $WAIT_S gone_from /out/gone-after.prom
check "removed: $CGROUP's series stay" 1 \
	"$(grep -c "^ksnap_cgroup_memory_current_window_max_bytes{cgroup=\"$CGROUP\"}" /out/gone-after.prom)"
echo 0 > $KSNAP_SYS/enable
wait_line /out/web-gone.tsv "STATS	"
kill $kpid
wait_pid $kpid $WAIT_S
check "removed: ksnapd exits 0 on SIGTERM" 0 $?
finish
