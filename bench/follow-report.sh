#!/bin/sh
# SPDX-License-Identifier: MIT
# The figures of latest.raw for following cgroups and for the OpenMetrics
# endpoint as a section of latest.md (scripts/bench appends it): discovery
# (bench/discostat.c), width against a cgroupfs poller (bench/cgpoll.c),
# the writer's widest rows (bench/writer.c), the renderer
# (bench/omrender.c) and the ring's loss under a scraper
# (bench/scrape.c).  A table is left out when its part did not run.
raw=$1
# v KEY LINE: the value of KEY in LINE, "-" when absent.
v() {
	r=$(echo "$2" | sed -n "s/.*\<$1=\([^ ]*\).*/\1/p")
	echo "${r:--}"
}
kernel=""
sect() { echo; echo "$1"; echo; }
while read -r l; do
	case "$l" in kernel=*) kernel=${l#kernel=} ;; esac
	case "$l" in
	kind=writer_wide*|kind=omrender*) ;;
	kind=discovery*|kind=width*|kind=cgpoll*|kind=pause*|kind=node*|kind=scrape_loss*)
		echo "$kernel $l" ;;
	esac
done < "$raw" > "${TMPDIR:-/tmp}/follow-report.$$"
t=${TMPDIR:-/tmp}/follow-report.$$

if grep -q '^kind=writer_wide\|^kind=omrender' "$raw" || [ -s "$t" ]; then
	sect "## Following cgroups and the endpoint"
fi
if grep -q 'kind=discovery' "$t"; then
	sect "### Discovery (2-vCPU guest)

mkdir of a cgroup under \`/disc/c*\` to the first record of the set that has its column (the record's time, CLOCK_MONOTONIC), sampling at 1 ms."
	echo "| kernel | discover_ms | settle_ms | samples | timeouts | set grew | p50 ms | p99 ms | max ms | mean ms |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	grep ' kind=discovery' "$t" | while read -r k l; do
		echo "| $k | $(v discover_ms "$l") | $(v settle_ms "$l") | $(v samples "$l") | $(v timeouts "$l") | $(v grew "$l") | $(awk "BEGIN { printf \"%.1f\", $(v lat_p50_us "$l")/1000 }" 2>/dev/null) | $(awk "BEGIN { printf \"%.1f\", $(v lat_p99_us "$l")/1000 }" 2>/dev/null) | $(awk "BEGIN { printf \"%.1f\", $(v lat_max_us "$l")/1000 }" 2>/dev/null) | $(awk "BEGIN { printf \"%.1f\", $(v lat_mean_us "$l")/1000 }" 2>/dev/null) |"
	done
fi
if grep -q 'kind=width\|kind=cgpoll' "$t"; then
	sect "### Width against a cgroupfs poller (2-vCPU guest)

memory.current and cpu.stat.usage of N cgroups; ksnap's read per snapshot (stats: read_sum_ns / taken, 20 Hz, CPU 0) beside a cgroupfs poller's sweep (open, read, parse memory.current and cpu.stat of each, CPU 1)."
	echo "| kernel | cgroups | ksnap columns | ksnap read µs / snapshot | ksnap read max µs | poller wall µs / sweep (p50) | poller CPU µs / sweep (p50) | poller / ksnap |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	grep ' kind=cgpoll cgroups=' "$t" | while read -r k l; do
		n=$(v cgroups "$l")
		w=$(grep "^$k kind=width cgroups=$n " "$t" | head -n 1 | cut -d' ' -f2-)
		if [ -n "$w" ] && [ "$(v error "$w")" = - ]; then
			rd=$(awk "BEGIN { t = $(v taken "$w"); if (t > 0) printf \"%.1f\", $(v read_sum_ns "$w") / t / 1000; else print \"-\" }")
			mx=$(awk "BEGIN { printf \"%.1f\", $(v read_max_ns "$w") / 1000 }")
			cols=$(v cols "$w")
		else
			rd="refused" mx=- cols=-
		fi
		pw=$(v wall_p50_us "$l")
		case $rd in
		[0-9]*) x=$(awk "BEGIN { printf \"%.1f×\", $pw / $rd }") ;;
		*) x=- ;;
		esac
		echo "| $k | $n | $cols | $rd | $mx | $pw | $(v cpu_p50_us "$l") | $x |"
	done
fi
if grep -q 'kind=node' "$t"; then
	sect "### A container node against a cgroupfs poller (2-vCPU guest)

N empty cgroups, each with the pod group's counters (13: memory.current, .working_set (current less memory.stat's inactive_file), .max, .swap.current, .events high and oom_kill, .stat anon and file, cpu.stat.usage, cpu, memory some and full, io pressure), at 100 Hz: the timer on CPU 0, ksnapd (plain, to a file in tmpfs) on CPU 1, 10 s measured. ksnap's CPU per second = read per snapshot × snapshots per second (the module's reads; not the timer's interrupt) + ksnapd's CPU per second (its schedstat). The poller opens, reads and parses the same counters from the cgroups' files (9 files a cgroup), once a sweep, on CPU 1; at 100 Hz it would spend 100 × its CPU per sweep each second. The bound is the whole period: cgroups a period cannot pay for are skipped and counted."
	echo "| kernel | cgroups | sampled | skipped | columns | snapshots / s | records lost | read µs / snapshot | ksnap reads ms / s | ksnapd CPU ms / s | ksnap in all ms / s | poller wall / CPU µs / sweep (p50) | poller at 100 Hz ms / s | poller / ksnap |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"
	grep ' kind=node' "$t" | while read -r k l; do
		n=$(v cgroups "$l")
		p=$(grep "^$k kind=cgpoll set=node " "$t" | head -n 1 | cut -d' ' -f2-)
		pc=$(v cpu_p50_us "$p")
		if [ "$(v error "$l")" != - ]; then
			echo "| $k | $n | refused | - | - | - | - | - | - | - | - | $(v wall_p50_us "$p") / $pc | - | - |"
			continue
		fi
		sk=$(v skipped "$l")
		awk -v n="$n" -v sk="$sk" -v cols="$(v cols "$l")" -v tk="$(v taken "$l")" \
			-v lost="$(v lost "$l")" -v pw="$(v wall_p50_us "$p")" \
			-v rs="$(v read_sum_ns "$l")" -v w="$(v wall_ns "$l")" \
			-v kc="$(v ksnapd_cpu_ns "$l")" -v pc="$pc" -v k="$k" 'BEGIN {
			s = w / 1e9; rate = tk / s; rd = tk ? rs / tk / 1000 : 0
			rms = rs / s / 1e6; kms = kc / s / 1e6; all = rms + kms
			pms = pc * 100 / 1000
			# The poller read all n cgroups; ksnap the n - sk it sampled.
			ratio = all > 0 ? pms * (n - sk) / n / all : 0
			printf "| %s | %d | %d | %d | %d | %.0f | %s | %.1f | %.1f | %.1f | %.1f | %s / %s | %.1f | %.1f× |\n", k, n, n - sk, sk, cols, rate, lost, rd, rms, kms, all, pw, pc, pms, ratio
		}'
	done
	echo
	echo "poller / ksnap compares like with like: the poller's CPU is scaled to the cgroups ksnap sampled. Records lost: the whole collection's (stats/lost, the ring full while ksnapd was behind); snapshots per second and the CPU figures are the 10 s window's."
fi
if grep -q 'kind=pause' "$t"; then
	sect "### The pause of a set change (2-vCPU guest)

A collection of memory.current and cpu.stat.usage of N-1 cgroups (and pgfault) at 20 Hz gains the Nth cgroup: one set change. The pause is the time from the timer's cancel to its arming again (stats/set_change_pause_max_ns); the new set's map to the old one is built before it, while the old set is sampled."
	echo "| kernel | cgroups | columns | set changes | pause µs | periods missed | read max µs |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	grep ' kind=pause' "$t" | while read -r k l; do
		if [ "$(v error "$l")" != - ]; then
			echo "| $k | $(v cgroups "$l") | refused | - | - | - | - |"
			continue
		fi
		echo "| $k | $(v cgroups "$l") | $(v cols "$l") | $(v set_changes "$l") | $(awk "BEGIN { printf \"%.1f\", $(v pause_max_ns "$l") / 1000 }") | $(v missed "$l") | $(awk "BEGIN { printf \"%.1f\", $(v read_max_ns "$l") / 1000 }") |"
	done
fi
if grep -q '^kind=writer_wide' "$raw"; then
	sect "### Writer, widest rows (native, synthetic ring, /dev/null)"
	echo "| mode | columns | rows/s | MB/s | µs/row | bytes/row |"
	echo "|---|---:|---:|---:|---:|---:|"
	grep '^kind=writer_wide' "$raw" | while read -r l; do
		echo "| $(v mode "$l") | $(v cols "$l") | $(v rows_per_s "$l") | $(v MB_per_s "$l") | $(awk "BEGIN { printf \"%.1f\", $(v ns_per_row "$l") / 1000 }") | $(v bytes_per_row "$l") |"
	done
fi
if grep -q '^kind=omrender' "$raw"; then
	sect "### OpenMetrics renderer (native)

web_render() as a scrape calls it, without HTTP; gzip as web.c does it (zlib level 6)."
	echo "| columns | format | samples | bytes | gzip bytes | render µs (best / median) | gzip µs (best / median) |"
	echo "|---:|---|---:|---:|---:|---|---|"
	grep '^kind=omrender' "$raw" | while read -r l; do
		echo "| $(v cols "$l") | $(v format "$l") | $(v samples "$l") | $(v bytes "$l") | $(v gzip_bytes "$l") | $(v render_us "$l") / $(v render_median_us "$l") | $(v gzip_us "$l") / $(v gzip_median_us "$l") |"
	done
fi
if grep -q 'kind=scrape_loss' "$t"; then
	sect "### Scrapes during a collection (2-vCPU guest)

ksnap.ko + ksnapd --lossy --web.listen-address, with and without a scraper (GET /metrics, gzip, one connection each)."
	echo "| kernel | period µs | columns | scraper | taken | lost | missed | scrapes ok / failed | per s | bytes / scrape | response p50 / p99 ms | ksnapd exit |"
	echo "|---|---:|---:|---|---:|---:|---:|---|---:|---:|---|---:|"
	grep ' kind=scrape_loss' "$t" | while read -r k l; do
		if [ "$(v scraper "$l")" = 1 ]; then
			s="$(v ok "$l") / $(v failed "$l")"
			ps=$(v achieved_per_s "$l")
			b=$(v bytes_per_scrape "$l")
			r="$(awk "BEGIN { printf \"%.1f / %.1f\", $(v resp_p50_us "$l") / 1000, $(v resp_p99_us "$l") / 1000 }")"
			sc=yes
		else
			s=- ps=- b=- r=- sc=no
		fi
		echo "| $k | $(v period_us "$l") | $(v cols "$l") | $sc | $(v taken "$l") | $(v lost "$l") | $(v missed "$l") | $s | $ps | $b | $r | $(v ksnapd_status "$l") |"
	done
fi
rm -f "$t"
