# SPDX-License-Identifier: MIT
# Test 3: the stream through journald with its default rate limit restored
# by a drop-in (LogRateLimitIntervalSec=30s, LogRateLimitBurst=10000):
# journald drops lines, ksnap-verify names the lost ones and exits 1, and
# nothing it reports intact is not: its intact rows are exactly the rows
# the journal holds, and its missing count is what ksnapd wrote (STATS)
# less those.  This is why the unit sets LogRateLimitIntervalSec=0.
#
# journald scales the burst with the journal's free space, by
# (log2(free bytes) - 16) / 4: 3x from 256 MiB, 3.25x from 512 MiB, up to
# 3.75x, so a journal with some room lets 30000 to 37500 lines through per
# 30 s, and a 1 kHz stream (30000 rows per 30 s) stays below that on most
# systems (measured: a 40 s collection at 1 kHz lost nothing with 788 MB
# free).  The collection here runs at 2 kHz, 60000 lines per 30 s, more
# than any burst journald allows, and stops once journald has reported
# its drop (the "Suppressed N messages" it logs when the next 30 s window
# opens), so that STATS and ADLER32 pass in the new window.
TEST=journal-rate-limit-loses-lines
. /guest/tests/syslib.sh
out=/out/ratelimited
dropin=/etc/systemd/system/ksnapd.service.d
mkdir -p $dropin
printf '[Service]\nLogRateLimitIntervalSec=30s\nLogRateLimitBurst=10000\n' > $dropin/50-journald-default-rate-limit.conf
systemctl daemon-reload
old=$(ksnapd_pid)
systemctl restart ksnapd
wait_new_reader "$old" 60 || fail "ksnapd restarted with the drop-in holds /dev/ksnap" "a new reader" "reader $(ksnap_stat reader)"
check "the drop-in restores journald's default interval" 30s "$(systemctl show -p LogRateLimitIntervalUSec --value ksnapd)"
check "the drop-in restores journald's default burst" 10000 "$(systemctl show -p LogRateLimitBurst --value ksnapd)"
info "journald: $(journalctl -b -u systemd-journald -o cat --no-pager | grep 'System Journal' | tail -n 1)"
echo 500 > $KSNAP_SYS/period_us
check "the module samples at 2 kHz for this test" 500 "$(cat $KSNAP_SYS/period_us)"

c=$(journal_cursor)
t0=$(date +%s)
echo 1 > $KSNAP_SYS/enable
dropped_some() { [ "$(journal_dropped "$c")" -gt 0 ]; }
if poll 90 dropped_some; then
	pass "journald reports dropping ksnapd's lines ($(( $(date +%s) - t0 )) s into the collection)"
else
	fail "journald reports dropping ksnapd's lines within 90 s" "a 'Suppressed N messages from ksnapd.service'" "none"
fi
# A few seconds of the new window, then the end of the stream.
sleep 2
echo 0 > $KSNAP_SYS/enable
info "collection of $(( $(date +%s) - t0 )) s at 2 kHz"
if end_collection "rate-limited" "$c" 1 $out; then
	check "ksnap-verify exits 1: damaged, rows recovered" 1 $verify_status
	missing=$(verify_count $out.verify missing)
	intact=$(verify_count $out.verify "rows intact")
	total=$(stats_key $out.tsv total_snapshots)
	journal_rows=$(grep -c "^GVISOR_METRICS	[0-9]" $out.journal)
	dropped=$(journal_dropped "$c")
	if [ "${missing:-0}" -gt 0 ]; then
		pass "ksnap-verify names the lost lines: $missing rows missing"
		show "$(grep -E '^(gap|missing):' $out.verify | head -n 5)"
	else
		fail "ksnap-verify names the lost lines" "missing rows > 0" "'$missing'"
	fi
	check "the rows it reports intact are as many as the journal holds" "$journal_rows" "$intact"
	grep "^GVISOR_METRICS	[0-9]" $out.journal | cut -f2-  | sed 's/	0x[0-9a-f]*$//' > /tmp/journal-rows
	tsv_rows $out.tsv > /tmp/tsv-rows
	if cmp -s /tmp/journal-rows /tmp/tsv-rows; then
		pass "the rows it recovers are the journal's rows, value for value"
	else
		fail "the rows it recovers are the journal's rows, value for value" "identical lists" "a difference"
		show "$(diff /tmp/journal-rows /tmp/tsv-rows | head -n 6)"
	fi
	check "its missing count is what ksnapd wrote (STATS) less what the journal holds" \
		"$((total - journal_rows))" "$missing"
	# journald reports a window's drops only when the next 30 s window
	# opens, so its count lags the loss: a figure, not a check.
	info "journald's own count of dropped lines so far: $dropped (ksnap-verify: $missing rows missing)"
	if id=$(identity $out.tsv); then pass "STATS identity (the loss is journald's, not the module's): $id"; else fail "STATS identity adds up" "taken = rows + counted" "$id"; fi
	figure "verify-ratelimited" "exit $verify_status: $(tail -n 1 $out.verify | sed 's/^[^:]*: //')"
	figure "journald-dropped" "$dropped lines of a 2 kHz stream of $total rows, $(( $(date +%s) - t0 )) s"
fi

rm -f $dropin/50-journald-default-rate-limit.conf
rmdir $dropin 2>/dev/null
echo $TEST_PERIOD_US > $KSNAP_SYS/period_us
systemctl daemon-reload
old=$(ksnapd_pid)
systemctl restart ksnapd
wait_new_reader "$old" 60 || fail "ksnapd restarted without the drop-in holds /dev/ksnap" "a new reader" "reader $(ksnap_stat reader)"
check "without the drop-in, the unit's limit (none) is back" 0 "$(systemctl show -p LogRateLimitIntervalUSec --value ksnapd)"
end_test
