#!/bin/sh
# SPDX-License-Identifier: MIT
# The flight recorder's figures of latest.raw (bench/flight.c) as a
# section of latest.md (scripts/bench appends it).
raw=$1
get() {
	sed -n "s/.*\<$1=\([0-9.]*\).*/\1/p" "$raw" | head -n 1
}
echo
echo "## Flight recorder (native)"
echo
echo "Rules evaluated by the flight recorder consumer on every row of 16 columns at"
echo "10 kHz (a mix of a comparison, a rate(), growth over an avg() and a sum held"
echo "for 5 ms; none fires), against the same consumer with no rule (the history"
echo "copy: $(get flight_row_ns_0_rules) ns a row).  bench/flight.c."
echo
echo "| rules | ns per row | ns per rule per row |"
echo "|---:|---:|---:|"
grep '^flight_rules=' "$raw" | while read -r l; do
	n=$(echo "$l" | sed -n 's/.*flight_rules=\([0-9]*\).*/\1/p')
	r=$(echo "$l" | sed -n 's/.*flight_row_ns=\([0-9.]*\).*/\1/p')
	p=$(echo "$l" | sed -n 's/.*flight_ns_per_rule_per_row=\([0-9.-]*\).*/\1/p')
	echo "| $n | $r | $p |"
done
echo
echo "ksnapd (collector, output file to /dev/null, flight recorder), 10 000 rows of"
echo "16 columns per second of sampling at 10 kHz, 1 000 a wake-up: CPU"
echo "$(get ksnapd_10khz_cpu_ms_per_s_0_rules) ms per second without rules,"
echo "$(get ksnapd_10khz_cpu_ms_per_s_10_rules) ms per second with 10 rules"
echo "($(get ksnapd_10khz_cpu_pct_10_rules)% of a CPU)."
