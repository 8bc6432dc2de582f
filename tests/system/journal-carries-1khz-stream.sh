# SPDX-License-Identifier: MIT
# Test 2: a 1 kHz lossy collection through journald, with the unit's rate
# limit (none): `journalctl -u ksnapd -o cat | ksnap-verify` exits 0,
# every row ksnapd wrote is in the journal, and the STATS identity holds
# (taken = rows + lost + ...), as the module's own count.  For 20 s; for
# 60 s, across two of journald's 30 s rate-limit windows, with
# KSNAP_TEST_LONG=1 (make check-all).
TEST=journal-carries-1khz-stream
. /guest/tests/syslib.sh
out=/out/unlimited
secs=20
[ "${KSNAP_TEST_LONG:-0}" = 1 ] && secs=60
check "the module samples at 1 kHz" 1000 "$(cat $KSNAP_SYS/period_us)"
c0=$(journal_cursor)
collect_to_journal "$secs s at 1 kHz" $secs $out || exit 1
check "journalctl -u ksnapd -o cat | ksnap-verify exits 0 (intact)" 0 $verify_status
[ $verify_status -eq 0 ] || show "$(tail -n 12 $out.verify)"
rows=$(tsv_rows $out.tsv | wc -l)
total=$(stats_key $out.tsv total_snapshots)
check "the rows in the journal are the rows ksnapd wrote (STATS total_snapshots)" "$total" "$rows"
check "ksnap-verify counts them intact" "$rows" "$(verify_count $out.verify "rows intact")"
if id=$(identity $out.tsv); then pass "STATS identity: $id"; else fail "STATS identity adds up" "taken = rows + counted" "$id"; fi
check "STATS' taken is the module's (stats knob)" "$(ksnap_stat taken)" "$(stats_key $out.tsv ksnap_snapshots_taken)"
check "journald dropped none of ksnapd's lines" 0 "$(journal_dropped "$c0")"
figure "rows-unlimited" "$rows"
figure "verify-unlimited" "exit $verify_status: $(tail -n 1 $out.verify | sed 's/^[^:]*: //')"
figure "capture-unlimited" "$(sed -n 's/.*capture: \([0-9]* of [0-9]* expected snapshots ([0-9.]*%)\).*/\1/p' $out.verify)"
info "stream through the journal: $(wc -c < $out.journal) bytes, $(wc -l < $out.journal) lines"
end_test
