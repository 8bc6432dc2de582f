# SPDX-License-Identifier: MIT
# Debian's own Prometheus scrapes the packaged ksnapd's endpoint, opened by
# README.md's drop-in (taken from the README, not copied), every 5 s, and a
# second one every 15 s.  A transient service takes a 64 MiB spike for
# about 50 ms between two scrapes of the first (the test times the spike
# against the scrape times Prometheus records, and tries again if a
# scrape fell inside it).  Then PromQL through the HTTP API shows:
#   - the spike in max_over_time(..._window_max_bytes[1m]);
#   - the last-value series' maximum over the same range without it;
#   - the same window maximum in the 15 s Prometheus;
#   - every query of deploy/grafana/ksnap-dashboard.json (Grafana's
#     variables put in: 5m for $__interval and its kin, .* for $instance)
#     answered with "status":"success" by the 5 s one, and its memory
#     peak panel's query returning the spiked cgroup.
# With KSNAP_TEST_LONG=1 (make check-all), a third Prometheus scrapes every
# 60 s, ksnapd's default window: right after one of its scrapes (within a
# few seconds), the spike again, so that it is 55 to 60 s old at the next
# scrape, in the window's oldest sixth; max_over_time(..._window_max_bytes
# [2m]) there shows it (the window covers every sample of at least the last
# 60 s, whatever the phase of the scrape against its sub-windows).
TEST=prometheus-sees-the-spike
. /guest/tests/syslib.sh
MIB64=67108864
svc=ksnapt-spike
cg=/system.slice/$svc.service
fifo=/run/ksnapt-spike.fifo
out=/out/prometheus
port=10109
dropin=/etc/systemd/system/ksnapd.service.d/web.conf
readme=/guest/files/README.md
dashboard=/guest/files/ksnap-dashboard.json

# --- the endpoint, as the README opens it --------------------------------
if [ ! -f $readme ]; then
	fail "README.md is in the guest" "/guest/files/README.md" "missing"
	exit 1
fi
mkdir -p "$(dirname $dropin)"
awk -v f="# $dropin" '$0 == f { on = 1; next } on && /^```/ { exit } on' $readme > $dropin
check "README.md has the drop-in ($dropin)" yes "$(grep -q '^ExecStart=.*--web.listen-address' $dropin && echo yes || echo no)"
sed 's/^/#   /' $dropin | tee -a "$RESULTS"

# The spike's service, idle until the test writes to its FIFO: then it
# writes 64 MiB into a tmpfs of its own, holds it about 50 ms, frees it,
# and writes the times around the hold to $out.spikes.
rm -f $fifo && mkfifo $fifo
systemd-run --unit=$svc --slice=system.slice -p TemporaryFileSystem=/run/spike \
	sh -c "while read -r _ < $fifo; do head -c $MIB64 /dev/zero > /run/spike/x; a=\$(date +%s.%N); sleep 0.05; b=\$(date +%s.%N); rm -f /run/spike/x; echo \"\$a \$b\" >> $out.spikes; done" \
	> $out.systemd-run.log 2>&1
check_st "systemd-run starts the spike's service" 0 $? $out.systemd-run.log
: > $out.spikes

systemctl stop ksnapd
echo $cg > $KSNAP_SYS/cgroups && echo memory.current > $KSNAP_SYS/metrics &&
	echo 10000 > $KSNAP_SYS/period_us
check_st "the module samples memory.current[$cg] every 10 ms" 0 $?
systemctl daemon-reload
systemctl start ksnapd
poll 60 attached || fail "ksnapd holds the device" "attached" "$(ksnap_stat reader)"
echo 1 > $KSNAP_SYS/enable

endpoint_up() { curl -sf -o /dev/null http://127.0.0.1:$port/metrics; }
if poll 60 endpoint_up; then
	pass "the unit with the drop-in serves http://127.0.0.1:$port/metrics"
else
	fail "the unit with the drop-in serves /metrics within 60 s" "HTTP 200" \
		"$(curl -sS http://127.0.0.1:$port/metrics 2>&1 | head -n 2); $(journalctl -u ksnapd -n 5 -o cat --no-pager)"
fi
curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' http://127.0.0.1:$port/metrics > $out.om
check "OpenMetrics ends in # EOF" "# EOF" "$(tail -n 1 $out.om)"
if grep -q "^ksnap_cgroup_memory_current_window_max_bytes{.*cgroup=\"$cg\"" $out.om; then
	pass "the endpoint has the cgroup's window maximum"
else
	fail "the endpoint has ksnap_cgroup_memory_current_window_max_bytes{cgroup=\"$cg\"}" "that series" "$(grep memory_current $out.om | head -n 3)"
fi

# --- two Prometheus servers ---------------------------------------------------
start_prometheus() { # NAME PORT INTERVAL
	mkdir -p /tmp/$1
	cat > /tmp/$1/prometheus.yml <<EOF
global:
  scrape_interval: $3
  scrape_timeout: 4s
scrape_configs:
  - job_name: ksnapd
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
	systemd-run --unit=ksnapt-$1 prometheus --config.file=/tmp/$1/prometheus.yml \
		--storage.tsdb.path=/tmp/$1/data --web.listen-address=127.0.0.1:$2 \
		> $out.$1.log 2>&1
}
start_prometheus prom5 9090 5s
check_st "Prometheus (5 s) starts" 0 $? $out.prom5.log
start_prometheus prom15 9091 15s
check_st "a second Prometheus (15 s) starts" 0 $? $out.prom15.log

# query PORT EXPR: the API's answer (JSON).
query() { curl -s "http://127.0.0.1:$1/api/v1/query" --data-urlencode "query=$2"; }
# query_at PORT EXPR TIME: the same, evaluated at TIME.
query_at() { curl -s "http://127.0.0.1:$1/api/v1/query" --data-urlencode "query=$2" --data-urlencode "time=$3"; }
# The value of a one-sample vector answer, or nothing.
value_of() { sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p'; }
# The times of PORT's scrapes of ksnapd in the last RANGE (1m), one a line.
scrape_times() { # PORT [RANGE]
	query "$1" "up{job=\"ksnapd\"}[${2:-1m}]" | grep -o '\[[0-9.]*,"[01]"\]' | sed 's/^\[\([0-9.]*\),.*/\1/'
}
scraped() { [ "$(query "$1" 'up{job="ksnapd"}' | value_of)" = 1 ]; }
poll 120 scraped 9090 || fail "Prometheus (5 s) scrapes ksnapd" "up 1" "$(query 9090 'up' | head -c 300)"
poll 120 scraped 9091 || fail "Prometheus (15 s) scrapes ksnapd" "up 1" "$(query 9091 'up' | head -c 300)"

# --- the spike, between two scrapes ------------------------------------------
# Right after a scrape of the 5 s Prometheus, spike; then wait for the
# next scrape and check that none fell within the spike.
newer_scrape() { # AFTER: a scrape later than AFTER exists
	[ -n "$(scrape_times 9090 | awk -v t="$1" '$1 > t' | head -n 1)" ]
}
between=no s_start=0 s_end=0
for try in 1 2 3 4 5; do
	last=$(scrape_times 9090 | tail -n 1)
	poll 20 newer_scrape "$last" || continue
	echo go > $fifo
	n=$(wc -l < $out.spikes)
	spiked() { [ "$(wc -l < $out.spikes)" -gt "$1" ]; }
	poll 60 spiked "$n" || continue
	set -- $(tail -n 1 $out.spikes)
	s_start=$1 s_end=$2
	poll 20 newer_scrape "$s_end" || continue
	inside=$(scrape_times 9090 | awk -v a="$s_start" -v b="$s_end" '$1 >= a - 0.5 && $1 <= b + 0.5' | wc -l)
	info "try $try: spike held $s_start..$s_end; scrapes within 0.5 s of it: $inside"
	if [ "$inside" -eq 0 ]; then
		between=yes
		break
	fi
done
check "the spike fell between two scrapes of the 5 s Prometheus" yes $between
# The 15 s one scrapes again within its interval.
newer_scrape_15() { [ -n "$(scrape_times 9091 | awk -v t="$1" '$1 > t' | head -n 1)" ]; }
poll 40 newer_scrape_15 "$s_end" || fail "the 15 s Prometheus scrapes after the spike" "a scrape" "none within 40 s"

sel="{cgroup=\"$cg\"}"
wmax=$(query 9090 "max_over_time(ksnap_cgroup_memory_current_window_max_bytes$sel[1m])" | value_of)
last=$(query 9090 "max_over_time(ksnap_cgroup_memory_current_bytes$sel[1m])" | value_of)
wmax15=$(query 9091 "max_over_time(ksnap_cgroup_memory_current_window_max_bytes$sel[1m])" | value_of)
figure "promql-window-max" "$wmax"
figure "promql-last-value-max" "$last"
figure "promql-window-max-15s" "$wmax15"
ge "max_over_time(window_max[1m]) shows the 64 MiB spike" "$(printf '%.0f' "${wmax:-0}")" $MIB64
if [ -n "$last" ] && [ "$(printf '%.0f' "$last")" -lt $MIB64 ]; then
	pass "max_over_time of the last-value series misses it ($last)"
else
	fail "max_over_time of the last-value series misses the spike" "< $MIB64" "'$last'"
fi
check "the 15 s Prometheus sees the same window maximum" "$wmax" "$wmax15"

# --- the Grafana dashboard's queries ------------------------------------------
# Each target of the dashboard: TITLE<tab>REFID<tab>EXPR, with Grafana's
# variables put in (tests/deploy/dashboard-exprs, as check-dashboard does).
dash_exprs() { # FILE
	python3 /guest/files/dashboard-exprs "$1" | grep -v '^\(var\|nointerval\)	'
}
status_of() { sed -n 's/^{"status":"\([a-z]*\)".*/\1/p'; }
if [ ! -f $dashboard ]; then
	fail "the dashboard is in the guest" "$dashboard" "missing"
elif ! dash_exprs $dashboard > $out.dashboard.exprs 2> $out.dashboard.err; then
	fail "dashboard-exprs reads the dashboard's targets" "status 0" "$(cat $out.dashboard.err)"
else
	ge "the dashboard has targets" "$(wc -l < $out.dashboard.exprs)" 1
	tab=$(printf '\t')
	while IFS=$tab read -r title ref expr; do
		a=$(query 9090 "$expr")
		if [ "$(echo "$a" | status_of)" = success ]; then
			pass "Prometheus answers \"$title\" $ref: $expr"
		else
			fail "Prometheus answers \"$title\" $ref ($expr)" '"status":"success"' "$(echo "$a" | head -c 300)"
		fi
	done < $out.dashboard.exprs
	peak=$(awk -F '\t' '$1 == "Memory peak per cgroup, and memory.max" && $2 == "A" { print $3 }' $out.dashboard.exprs)
	a=$(query 9090 "$peak")
	echo "$a" > $out.dashboard.peak.json
	got=$(echo "$a" | sed -n "s|.*\"cgroup\":\"$cg\"[^}]*},\"value\":\[[0-9.]*,\"\([^\"]*\)\"\].*|\1|p")
	if [ -n "$got" ]; then
		pass "the memory peak panel's query ($peak) returns $cg"
		ge "the memory peak panel shows the 64 MiB spike" "$(printf '%.0f' "$got")" $MIB64
	else
		fail "the memory peak panel's query ($peak) returns $cg" "a series with cgroup=\"$cg\"" "$(echo "$a" | head -c 300)"
	fi
fi

# --- a 60 s Prometheus, the spike in the window's last sixth (check-all) ------
# Each scrape's window covers every sample of at least the last 60 s: a
# spike right after a scrape is still in the next one's, 55 to 60 s old.
# A window that kept only its six sub-windows (50 to 60 s) would miss it
# unless the scrape fell early in its sub-window.
if [ "${KSNAP_TEST_LONG:-0}" = 1 ]; then
	# The others would share renders with it (a scrape within a second of
	# another's gets that answer).
	systemctl stop ksnapt-prom5 ksnapt-prom15 > /dev/null 2>&1
	start_prometheus prom60 9092 60s
	check_st "a third Prometheus (60 s) starts" 0 $? $out.prom60.log
	spiked() { [ "$(wc -l < $out.spikes)" -gt "$1" ]; }
	newer_scrape_at() { # PORT AFTER
		[ -n "$(scrape_times "$1" 3m | awk -v t="$2" '$1 > t' | head -n 1)" ]
	}
	# The sub-windows (10 s of CLOCK_MONOTONIC, which /proc/uptime is
	# here: nothing suspends) from the spike's to the scrape's: at 6, a
	# window of six sub-windows alone would not hold the spike, so only
	# such a try tells the window apart from one a sixth shorter.
	mono_off=$(echo "$(date +%s.%N) $(cut -d ' ' -f 1 /proc/uptime)" | awk '{ printf "%.2f", $1 - $2 }')
	subs_apart() { # SPIKE SCRAPE
		echo "$1 $2 $mono_off" | awk '{ print int(($2 - $3) / 10) - int(($1 - $3) / 10) }'
	}
	# A scrape whose window cannot hold the spikes above (the window is at
	# most 70 s).
	after=$(echo "$s_end" | awk '{ printf "%.3f", $1 + 71 }')
	found=no lag=0 t=0 apart=0
	for try in 1 2 3 4; do
		n=$(wc -l < $out.spikes)
		poll 150 newer_scrape_at 9092 "$after" || break
		# At once: the scrape just seen is the last one for 60 s.
		echo go > $fifo
		t=$(scrape_times 9092 3m | tail -n 1)
		poll 60 spiked "$n" || break
		set -- $(tail -n 1 $out.spikes)
		s_start=$1 s_end=$2
		after=$(echo "$s_end" | awk '{ printf "%.3f", $1 + 71 }')
		lag=$(echo "$s_start $t" | awk '{ printf "%.1f", $1 - $2 }')
		held=$(query_at 9092 "ksnap_cgroup_memory_current_window_max_bytes$sel" "$t" | value_of)
		info "try $try: 60 s Prometheus scraped at $t, spike held $s_start..$s_end ($lag s later); window maximum at that scrape: $held"
		awk -v l="$lag" 'BEGIN { exit !(l >= 0 && l <= 4) }' &&
			[ -n "$held" ] && [ "$(printf '%.0f' "$held")" -lt $MIB64 ] ||
			continue
		# The next scrape, the one whose window must hold it.
		if ! poll 90 newer_scrape_at 9092 "$s_end"; then
			fail "the 60 s Prometheus scrapes after the spike" "a scrape within 90 s" "none"
			break
		fi
		t2=$(scrape_times 9092 3m | awk -v t="$s_end" '$1 > t' | head -n 1)
		apart=$(subs_apart "$s_start" "$t2")
		info "try $try: sub-windows from the spike's to the next scrape's: $apart"
		if [ "$apart" -ge 6 ]; then
			found=yes
			break
		fi
	done
	info "last try: the spike $lag s after the scrape, $apart sub-windows before the next"
	check "a spike came within 4 s after a scrape of the 60 s Prometheus whose window did not hold it, 6 sub-windows before the next scrape" \
		yes "$found"
	if [ $found = yes ]; then
		age=$(echo "$t2 $s_start" | awk '{ printf "%.1f", $1 - $2 }')
		figure "promql-60s-spike-age" "$age"
		w60=$(query 9092 "max_over_time(ksnap_cgroup_memory_current_window_max_bytes$sel[2m])" | value_of)
		figure "promql-window-max-60s" "$w60"
		ge "the 60 s Prometheus's max_over_time(window_max[2m]) shows the spike $age s old at its scrape, 6 sub-windows on" \
			"$(printf '%.0f' "${w60:-0}")" $MIB64
	fi
	systemctl stop ksnapt-prom60 > /dev/null 2>&1
fi

# --- back as it was -----------------------------------------------------------
systemctl stop ksnapt-prom5 ksnapt-prom15 $svc > /dev/null 2>&1
echo 0 > $KSNAP_SYS/enable
systemctl stop ksnapd
rm -f $dropin $fifo
rmdir "$(dirname $dropin)" 2>/dev/null
rm -rf /tmp/prom5 /tmp/prom15 /tmp/prom60
echo "$TEST_METRICS" > $KSNAP_SYS/metrics && echo > $KSNAP_SYS/cgroups &&
	echo "$TEST_PERIOD_US" > $KSNAP_SYS/period_us
systemctl daemon-reload
systemctl start ksnapd
end_test
