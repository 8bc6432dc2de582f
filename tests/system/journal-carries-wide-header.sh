# SPDX-License-Identifier: MIT
# A stream whose header is far longer than journald's LineMax (48 KiB by
# default, where journald cuts a line of a stream): 250 cgroups made here
# with mkdir, with 190-byte names, times 4 metrics, 1000 columns of about
# 220 bytes: a header larger than a datagram to journald's socket may be
# (212992 bytes, net.core.wmem_max), which sd_journal_sendv() passes in a
# sealed memfd.  ksnapd's standard output is the journal ($JOURNAL_STREAM), so
# it sends each line as an entry of its own through the native protocol:
# `journalctl -u ksnapd -o cat | ksnap-verify` exits 0, the header read
# back is one line with every column, and ksnap-verify's TSV has them all.
# Then ksnapd without the native protocol (a transient unit that hides its
# socket): the first line past LineMax is refused with its length and
# LineMax, and no part of the header reaches the journal.
TEST=journal-carries-wide-header
. /guest/tests/syslib.sh
out=/out/wide
parent=/sys/fs/cgroup/ksnapt-wide
N=250
METRICS=memory.current,memory.max,cpu.stat.usage,memory.pressure.some
LINE_MAX=49152
pad=$(printf '%0185d' 0 | tr 0 w)


mkdir -p $parent
echo +memory > $parent/cgroup.subtree_control
echo +cpu > $parent/cgroup.subtree_control 2>/dev/null
# One mkdir for them all (the shell's printf names them): a process or two
# per cgroup is slow under emulation.
i=1
while [ $i -le $N ]; do
	printf '%s/%s-%04d\n' "$parent" "$pad" $i
	i=$((i + 1))
done | xargs mkdir -p
check "$N cgroups with 190-byte names made under $parent" $N \
	"$(find $parent -mindepth 1 -maxdepth 1 -type d | wc -l)"

set_knobs "$METRICS" "/ksnapt-wide/*" 100000
check_st "the module follows /ksnapt-wide/* with 4 metrics" 0 $? /dev/null
c0=$(journal_cursor)
collect_to_journal "10 s at 10 Hz, $N cgroups x 4 metrics" 10 $out
check "journalctl -u ksnapd -o cat | ksnap-verify exits 0 (intact)" 0 $verify_status
[ $verify_status -eq 0 ] || show "$(tail -n 12 $out.verify)"

# The header as the journal gives it back: the longest line.
hdr_len=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' $out.journal)
hdr_cols=$(awk -F '\t' -v m="$hdr_len" 'length($0) == m { print gsub(/\[\/ksnapt-wide\//, ""); exit }' $out.journal)
info "net.core.wmem_max: $(cat /proc/sys/net/core/wmem_max)"
if [ "$hdr_len" -gt $LINE_MAX ]; then
	pass "the header read back is one line of $hdr_len bytes, longer than LineMax ($LINE_MAX)"
else
	fail "the header read back is one line longer than LineMax" "> $LINE_MAX bytes" "$hdr_len"
fi
check "the header read back has every cgroup column" $((N * 4)) "$hdr_cols"
tsv_cols=$(awk -F '\t' '$1 == "Time (ns)" { print NF - 1; exit }' $out.tsv)
check "ksnap-verify's TSV header has every column (cgroups x metrics + the sample's time)" \
	$((N * 4)) "$(awk -F '\t' '$1 == "Time (ns)" { n = 0; for (i = 2; i <= NF; i++) if ($i ~ /\[\/ksnapt-wide\//) n++; print n; exit }' $out.tsv)"
rows=$(tsv_rows $out.tsv | wc -l)
check "the rows in the journal are the rows ksnapd wrote (STATS total_snapshots)" \
	"$(stats_key $out.tsv total_snapshots)" "$rows"
check "journald dropped none of ksnapd's lines" 0 "$(journal_dropped "$c0")"
check "ksnapd's entries carry KSNAP_COLLECTION" yes \
	"$(journalctl -u ksnapd --after-cursor="$c0" -o export --no-pager | grep -q '^KSNAP_COLLECTION=[0-9]' && echo yes || echo no)"

# What the other output modes make of the header (ksnapd(8) says).
for mode in "cat" "short" "short --all" "verbose" "json" "json --all" "export"; do
	# shellcheck disable=SC2086
	_m=$(journalctl -u ksnapd --after-cursor="$c0" -o $mode --no-pager |
		awk '{ if (length($0) > m) { m = length($0); t = gsub(/\t/, "") } } END { print m + 0, "bytes,", t + 0, "tabs" }')
	info "journalctl -o $mode: longest line $_m"
done
figure "wide-header" "$hdr_len bytes, $hdr_cols cgroup columns ($tsv_cols in the TSV), $rows rows, verify exit $verify_status"

# --- without the native protocol ----------------------------------------
nat=ksnapt-nonative
refused() { # CURSOR
	journalctl -u $nat --after-cursor="$1" -o cat --no-pager | grep -q "longer than journald's LineMax"
}
systemctl stop ksnapd
c1=$(journal_cursor)
systemd-run --unit=$nat -p InaccessiblePaths=/run/systemd/journal/socket \
	/usr/sbin/ksnapd --lossy > $out.nonative.log 2>&1
check_st "systemd-run starts ksnapd with the journal's socket hidden" 0 $? $out.nonative.log
poll 60 attached || fail "ksnapd of $nat holds /dev/ksnap" attached "$(ksnap_stat reader)"
echo 1 > $KSNAP_SYS/enable
if poll 60 refused "$c1"; then
	pass "a line past LineMax is refused: $(journalctl -u $nat --after-cursor="$c1" -o cat --no-pager | grep "LineMax" | tail -n 1)"
else
	fail "a line past LineMax is refused, naming LineMax" "a message" "$(journalctl -u $nat --after-cursor="$c1" -o cat --no-pager | tail -n 3)"
fi
echo 0 > $KSNAP_SYS/enable
journalctl -u $nat --after-cursor="$c1" -o cat --no-pager > $out.nonative.journal
check_lines "ksnapd said it has no native protocol" ">0" "the journal's native protocol:" "$(cat $out.nonative.journal)"
# The first line past LineMax is refused: a META line (its metric's 250
# columns) comes before the header.
first_long=$(awk -v m=$LINE_MAX 'length($0) > m { print length($0); exit }' $out.journal)
check "the refusal names the stream's first line past LineMax by its length" "$first_long" \
	"$(sed -n "s/.*a line of \([0-9]*\) bytes is longer than journald's LineMax ($LINE_MAX bytes.*/\1/p" $out.nonative.journal | head -n 1)"
check "no line naming the cgroups (META, header) reached the journal" 0 "$(grep -c 'ksnapt-wide' $out.nonative.journal)"
systemctl stop $nat 2>/dev/null
systemctl reset-failed $nat 2>/dev/null

set_knobs "$TEST_METRICS" "" "$TEST_PERIOD_US"
find $parent -mindepth 1 -maxdepth 1 -type d -exec rmdir {} + 2>/dev/null
rmdir $parent
end_test
