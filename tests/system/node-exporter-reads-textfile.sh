# SPDX-License-Identifier: MIT
# Debian's prometheus-node-exporter reads ksnapd's --textfile: the drop-in
# and node_exporter's ARGS are docs/prometheus.md's (taken from it, not
# copied; the test adds --web.window 5m so that a slow guest's checks stay
# within the window).  First the drop-in without its ReadWritePaths: the
# unit's read-only /var makes every write fail, named and logged, and the
# collection goes on.  Then the drop-in as documented: a collection of a
# few seconds, and a scrape of node_exporter's :9100/metrics shows the
# ksnap_ families with the values of the stream in the journal: the
# snapshots taken (STATS), the counter's last value (the last row), the
# gauge's window maximum and minimum (the rows' maximum and minimum).
TEST=node-exporter-reads-textfile
. /guest/tests/syslib.sh
out=/out/textfile
doc=/guest/files/prometheus.md
dir=/var/lib/prometheus/node-exporter
file=$dir/ksnap.prom
dropin=/etc/systemd/system/ksnapd.service.d/textfile.conf
defaults=/etc/default/prometheus-node-exporter

if [ ! -f $doc ]; then
	fail "docs/prometheus.md is in the guest" "$doc" "missing"
	exit 1
fi
# The fenced block after the line "# PATH" (or whose first line is X=).
block_after() { # FIRST-LINE
	awk -v f="$1" '$0 == f { on = 1; next } on && /^```/ { exit } on' $doc
}
mkdir -p "$(dirname $dropin)"
block_after "# $dropin" | sed 's|^\(ExecStart=/usr/sbin/ksnapd .*\)$|\1 --web.window 5m|' > $out.dropin
check "docs/prometheus.md has the drop-in ($dropin)" yes \
	"$(grep -q '^ExecStart=.*--textfile=' $out.dropin && grep -q '^ReadWritePaths=' $out.dropin && echo yes || echo no)"
args=$(awk '/^```sh$/ { on = 1; next } on && /^```/ { on = 0 } on && /^ARGS=/' $doc)
check "docs/prometheus.md has node_exporter's ARGS" yes "$(echo "$args" | grep -q "textfile.directory=$dir" && echo yes || echo no)"
sed 's/^/#   /' $out.dropin | tee -a "$RESULTS"

# --- without ReadWritePaths: the writes fail, the collection goes on ----------
systemctl stop ksnapd
grep -v '^ReadWritePaths=' $out.dropin > $dropin
systemctl daemon-reload
c0=$(journal_cursor)
systemctl start ksnapd
poll 60 attached || fail "ksnapd holds the device" "attached" "$(ksnap_stat reader)"
erofs() { ksnapd_journal "$c0" | grep -q "textfile: open $dir/.ksnap.prom.tmp.[0-9]* (for $file): Read-only file system"; }
if poll 60 erofs; then
	pass "a read-only $dir: ksnapd logs the write's error with the path"
else
	fail "a read-only $dir: ksnapd logs the error with the path" "textfile: open $dir/.ksnap.prom.tmp.PID (for $file): Read-only file system" \
		"$(ksnapd_journal "$c0" | grep -v '^GVISOR' | tail -n 5)"
fi
check "and goes on (active)" active "$(systemctl is-active ksnapd)"
check "no file in $dir" "" "$(ls -A $dir | grep ksnap)"

# --- the drop-in as documented -----------------------------------------------
systemctl stop ksnapd
cp $out.dropin $dropin
cp $defaults $out.defaults.orig
sed -i "s|^ARGS=.*|$args|" $defaults
systemctl daemon-reload
systemctl start ksnapd
poll 60 attached || fail "ksnapd holds the device" "attached" "$(ksnap_stat reader)"
written() { [ -f $file ]; }
poll 60 written || fail "ksnapd writes $file within 60 s" "the file" "$(ls -la $dir)"
check "$file is mode 644, root's" "644 root" "$(stat -c '%a %U' $file)"
systemctl unmask prometheus-node-exporter > /dev/null 2>&1
systemctl start prometheus-node-exporter
check_st "node_exporter starts" 0 $?
scrape() { curl -sf http://127.0.0.1:9100/metrics > $out.scrape; }
poll 60 scrape || fail "node_exporter answers on :9100/metrics" "HTTP 200" "$(journalctl -u prometheus-node-exporter -n 5 -o cat --no-pager)"
check "node_exporter reads the textfile directory without error" 0 \
	"$(sed -n 's/^node_textfile_scrape_error \([0-9]*\)$/\1/p' $out.scrape)"
check "node_exporter carries ksnap_build_info" 1 "$(grep -c '^ksnap_build_info{' $out.scrape)"
# The file is rewritten every few seconds: its mtime moves.
mtime() { sed -n 's/^node_textfile_mtime_seconds{file="[^"]*ksnap.prom"} \(.*\)$/\1/p' $out.scrape; }
m0=$(mtime)
moved() { scrape && [ "$(mtime)" != "$m0" ]; }
if [ -n "$m0" ] && poll 30 moved; then
	pass "ksnapd rewrites the file (node_textfile_mtime_seconds $m0, then $(mtime))"
else
	fail "ksnapd rewrites the file within 30 s" "node_textfile_mtime_seconds moving" "'$m0', then '$(mtime)'"
fi

# A collection of a few seconds, read back from the journal.
collect_to_journal "3 s at 1 kHz" 3 $out || exit 1
check "ksnap-verify finds the stream intact" 0 $verify_status
taken=$(stats_key $out.tsv ksnap_snapshots_taken)
series() { sed -n "s/^$1 \\(.*\\)\$/\\1/p" $out.scrape; }
# Go prints a float shortest, 1.234567e+06 for 1234567: compared as numbers.
same() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 == b + 0) }'; }
check_same() { # WHAT EXPECTED GOT
	if same "$2" "$3"; then pass "$1 ($3)"; else fail "$1" "$2" "'$3'"; fi
}
ended() { scrape && [ "$(series ksnap_collection_running)" = 0 ] &&
	same "$taken" "$(series ksnap_snapshots_taken_total)"; }
if poll 60 ended; then
	pass "node_exporter shows the ended collection: ksnap_snapshots_taken_total $taken, as STATS"
else
	fail "node_exporter shows ksnap_snapshots_taken_total as STATS, running 0" "$taken" \
		"$(grep -E '^ksnap_(snapshots_taken_total|collection_running) ' $out.scrape | tr '\n' ' ')"
fi
# The stream's columns: the counter's last value, the gauge's extremes.
col() { # NAME: the column's values, one a line
	awk -F '\t' -v n="$1" '$1 == "Time (ns)" { for (i = 1; i <= NF; i++) if ($i == n) c = i; next }
		c && $1 ~ /^[0-9]+$/ { print $c }' $out.tsv
}
check_same "ksnap_vmstat_pgfault_total is the stream's last pgfault" "$(col pgfault | tail -n 1)" "$(series ksnap_vmstat_pgfault_total)"
check_same "ksnap_vmstat_nr_free_pages_window_max is the stream's maximum" "$(col nr_free_pages | sort -n | tail -n 1)" \
	"$(series ksnap_vmstat_nr_free_pages_window_max)"
check_same "ksnap_vmstat_nr_free_pages_window_min is the stream's minimum" "$(col nr_free_pages | sort -n | sed -n 1p)" \
	"$(series ksnap_vmstat_nr_free_pages_window_min)"
check "a pgfault peak rate (ksnap_vmstat_pgfault_window_max_rate)" 1 "$(grep -c '^ksnap_vmstat_pgfault_window_max_rate ' $out.scrape)"
check "ksnap_textfile_write_errors_total 0" 0 "$(series ksnap_textfile_write_errors_total)"
check "no temporary file left in $dir" "" "$(ls -A $dir | grep '^\.ksnap')"
figure "textfile-families" "$(grep -c '^# TYPE ksnap_' $out.scrape)"

# --- back as it was -----------------------------------------------------------
systemctl stop prometheus-node-exporter
ln -sf /dev/null /etc/systemd/system/prometheus-node-exporter.service
cp $out.defaults.orig $defaults
systemctl stop ksnapd
rm -f $dropin $file
rmdir "$(dirname $dropin)" 2>/dev/null
systemctl daemon-reload
systemctl start ksnapd
end_test
