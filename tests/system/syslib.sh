# SPDX-License-Identifier: MIT
# Shared helpers of the system tests (tests/system/*.sh), sourced in a real
# Debian system booted by scripts/guest --system, or in the chroot of its
# image before boot (the install steps).  They live in /guest/tests/ there,
# with tests/guest/lib.sh, whose check format they use:
#   ok - <test>: <behaviour>
#   not ok - <test>: <behaviour>: expected <x>, got <y>
# appended to /out/results.txt, which tests/system/run counts.  Lines
# "# figure: KEY VALUE" are the figures the run reports per system.
# shellcheck shell=sh

. /guest/tests/lib.sh
SUITE=$(cat /guest/system)
# journald's "Suppressed N messages from UNIT" (SD_MESSAGE_JOURNAL_DROPPED).
JOURNAL_DROPPED_ID=a596d6fe7bfa4994828e72309e95d61e
# The module's options the tests configure in /etc/modprobe.d/ksnap.conf
# (configure-module-at-boot.sh): none of them is the default, so that the
# values in /sys show where they came from.
TEST_METRICS=pgfault,pgmajfault,nr_free_pages,meminfo.MemAvailable
TEST_RING_KB=4096
TEST_PERIOD_US=1000

# end_test: every test's last line.  "# end: TEST" in the results says
# that the script ran to its end (steps.sh fails one without it); the
# status is the verdict.
end_test() {
	echo "# end: $TEST" >> "$RESULTS"
	[ $nfail -eq 0 ]
}

figure() { # KEY VALUE...
	_k=$1
	shift
	echo "# figure: $_k $*" | tee -a "$RESULTS"
}

# poll SECONDS COMMAND...: run COMMAND every 0.2 s until it succeeds;
# status 1 if it has not after SECONDS.
poll() {
	_deadline=$(( $(date +%s) + $1 ))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$_deadline" ] || return 1
		sleep 0.2
	done
}

# The journal's current end, for reading only what comes after it.
journal_cursor() {
	journalctl -n 0 --show-cursor -q | sed -n 's/^-- cursor: //p'
}
# ksnapd's lines after CURSOR, as `journalctl -u ksnapd -o cat` prints them.
ksnapd_journal() { # CURSOR
	journalctl -u ksnapd --after-cursor="$1" -o cat --no-pager
}
# Streams ended (an ADLER32 line) after CURSOR: at least N?
streams_ended() { # CURSOR N
	[ "$(ksnapd_journal "$1" | grep -c "^GVISOR_METRICS	ADLER32	")" -ge "$2" ]
}
# A row of ksnapd's reached the journal after CURSOR (the stream flows).
# Not "the last entry is a row": each flush ends with an empty line, which
# journald keeps as an entry of its own.
rows_flowing() { # CURSOR
	ksnapd_journal "$1" | grep -q "^GVISOR_METRICS	[0-9]"
}
# A row of the ksnapd of PID reached the journal after CURSOR (its stream
# flows; the rows of the one before it do not count).
rows_from() { # CURSOR PID
	journalctl _PID="$2" --after-cursor="$1" -o cat --no-pager | grep -q "^GVISOR_METRICS	[0-9]"
}
# journald's count of ksnapd's messages it dropped after CURSOR.
journal_dropped() { # CURSOR
	journalctl --after-cursor="$1" MESSAGE_ID=$JOURNAL_DROPPED_ID -o export --no-pager 2>/dev/null |
		awk '/^MESSAGE=.*ksnapd\.service/ { mine = 1 }
		     /^N_DROPPED=/ { n = substr($0, 11) }
		     /^$/ { if (mine) sum += n; mine = 0; n = 0 }
		     END { if (mine) sum += n; print sum + 0 }'
}

# The ksnap.ko DKMS installed for kernel K: Debian 13's DKMS compresses it
# as the kernel's modules are (ksnap.ko.xz), Debian 12's does not.
dkms_ko() { # K
	for _f in /lib/modules/$1/updates/dkms/ksnap.ko /lib/modules/$1/updates/dkms/ksnap.ko.xz \
		/lib/modules/$1/updates/dkms/ksnap.ko.zst /lib/modules/$1/updates/dkms/ksnap.ko.gz; do
		[ -f "$_f" ] && { echo "$_f"; return 0; }
	done
	echo /lib/modules/$1/updates/dkms/ksnap.ko
	return 1
}
# An uncompressed copy of module KO (for readelf), in /tmp.
ko_elf() { # KO
	case "$1" in
	*.xz) xz -dc "$1" > /tmp/ksnap-elf.ko ;;
	*.zst) zstd -qdc "$1" > /tmp/ksnap-elf.ko ;;
	*.gz) gzip -dc "$1" > /tmp/ksnap-elf.ko ;;
	*) cp "$1" /tmp/ksnap-elf.ko ;;
	esac
	echo /tmp/ksnap-elf.ko
}

# newer_deb PACKAGE: the package file in /guest/files of a version newer
# than the one installed (the harness gives the installed version's too,
# for the image).
newer_deb() {
	_have=$(dpkg-query -W -f '${Version}' "$1")
	for _f in /guest/files/"$1"_*.deb; do
		[ -f "$_f" ] || continue
		dpkg --compare-versions "$(dpkg-deb -f "$_f" Version)" gt "$_have" &&
			echo "$_f" && return 0
	done
	return 1
}

ksnapd_pid() {
	systemctl show -p MainPID --value ksnapd
}
# ksnapd holds /dev/ksnap (the module's stats say so) and is PID.
attached() { # [PID]
	[ "$(ksnap_stat reader)" = attached ] || return 1
	[ -z "${1:-}" ] || [ "$(ksnapd_pid)" = "$1" ]
}
# Wait for a ksnapd other than OLD-PID to hold the device.
wait_new_reader() { # OLD-PID SECONDS
	poll "$2" new_reader "$1"
}
new_reader() {
	_p=$(ksnapd_pid)
	[ -n "$_p" ] && [ "$_p" != 0 ] && [ "$_p" != "$1" ] && attached "$_p"
}

# STATS key of a plain stream (ksnap-verify --tsv's output).
stats_key() { # TSV KEY
	sed -n "s/^STATS	.*\"$2\":\([0-9]*\).*/\1/p" "$1" | head -1
}
# The figures of ksnap-verify's summary (its last line): rows intact,
# missing, cut or damaged, duplicate lines.
verify_count() { # REPORT WHAT ("rows intact", "missing", ...)
	tail -n 1 "$1" | sed -n "s/.* \([0-9][0-9]*\) $2.*/\1/p"
}
# Rows of a plain stream: lines whose first field is a number.
tsv_rows() { # TSV
	awk -F '\t' '$1 ~ /^[0-9]+$/' "$1"
}

# The STATS identity of a stream (plain TSV): every snapshot taken is a
# row or counted.  Prints "taken = rows + lost + overwritten + dropped +
# skipped + first" with the numbers; status 0 if it adds up.
identity() { # TSV
	_t=$(stats_key "$1" ksnap_snapshots_taken)
	_r=$(stats_key "$1" total_snapshots)
	_l=$(stats_key "$1" ksnap_snapshots_lost)
	_o=$(stats_key "$1" ksnapd_snapshots_overwritten)
	_d=$(stats_key "$1" ksnapd_rows_dropped)
	_s=$(stats_key "$1" ksnapd_snapshots_skipped)
	_f=$(stats_key "$1" ksnapd_first_position)
	echo "$_t = $_r rows + ${_l:-0} lost + ${_o:-0} overwritten + ${_d:-0} dropped + ${_s:-0} skipped + ${_f:-0} read before"
	[ -n "$_t" ] && [ -n "$_r" ] &&
		[ "$_t" -eq $((_r + ${_l:-0} + ${_o:-0} + ${_d:-0} + ${_s:-0} + ${_f:-0})) ]
}

# A collection of SECONDS at the module's period, started and stopped
# with the knob while ksnapd is attached, read back from the journal into
# OUT.journal, checked by ksnap-verify into OUT.verify (status in
# $verify_status) and OUT.tsv.  Fails the check WHAT if the stream does not
# end in the journal in time.
collect_to_journal() { # WHAT SECONDS OUT
	_what=$1
	poll 60 attached || { fail "$_what: ksnapd holds /dev/ksnap before the start" "'attached' in $KSNAP_SYS/stats/reader" "reader $(ksnap_stat reader)"; return 1; }
	_c=$(journal_cursor)
	echo 1 > "$KSNAP_SYS/enable"
	sleep "$2"
	echo 0 > "$KSNAP_SYS/enable"
	end_collection "$_what" "$_c" 1 "$3"
}
# After a stop: wait for N streams to end after CURSOR, then read and check.
end_collection() { # WHAT CURSOR N OUT
	if ! poll 180 streams_ended "$2" "$3"; then
		fail "$1: the stream ends in the journal (ADLER32) within 180 s of the stop" "$3 ADLER32 line(s)" \
			"$(ksnapd_journal "$2" | grep -c "^GVISOR_METRICS	ADLER32	")"
		return 1
	fi
	ksnapd_journal "$2" > "$4.journal"
	verify_status=0
	ksnap-verify --tsv "$4.tsv" "$4.journal" > "$4.verify" 2>&1 || verify_status=$?
	return 0
}

# Every path (with its type) where a package can put something or leave
# something behind: /etc, /usr (with /usr/lib/modules and the units),
# DKMS's tree, dpkg's database of package files and the units' enablement
# state.  The harness's own files are left out, and so are /etc/.updated,
# systemd-update-done's stamp of the first boot after /usr changed (Debian
# 13), and /etc/cni/net.d/cni.lock, which Debian 12's podman makes at its
# first run (podman-auto-update at boot): no package owns either.
file_list() { # OUT
	find /etc /usr /var/lib/dkms /var/lib/dpkg/info \
		/var/lib/systemd/deb-systemd-helper-enabled \
		/var/lib/systemd/deb-systemd-helper-masked \
		-xdev -printf '%y %p\n' 2>/dev/null | grep -v -e '^f /etc/\.updated$' -e '^f /etc/cni/net\.d/cni\.lock$' |
		LC_ALL=C sort > "$1"
}

# A 1 kHz collection through the journal that ksnapd is restarted in the
# middle of, by RESTART (a command: systemctl restart ksnapd, an upgrade):
# the first ksnapd ends its stream (STATS, ADLER32) on SIGTERM, the new one
# resumes the collection where it stopped reading (STATS'
# ksnapd_first_position), and across the two streams every snapshot is a
# row or counted.  Results in OUT.*.
restart_mid_collection() { # OUT RESTART...
	_out=$1
	shift
	poll 60 attached || { fail "ksnapd holds /dev/ksnap before the start" "a reader" "reader $(ksnap_stat reader)"; return 1; }
	_c=$(journal_cursor)
	_old=$(ksnapd_pid)
	echo 1 > $KSNAP_SYS/enable
	poll 60 rows_flowing "$_c" || fail "rows reach the journal" "a row" "none after 60 s"
	sleep 5
	_cr=$(journal_cursor)
	_st=0
	"$@" > $_out.restart.log 2>&1 || _st=$?
	check_st "'$*' succeeds mid-collection" 0 $_st $_out.restart.log
	if wait_new_reader "$_old" 60; then
		pass "a new ksnapd (PID $(ksnapd_pid), was $_old) holds /dev/ksnap"
	else
		fail "a new ksnapd holds /dev/ksnap" "a reader other than PID $_old" "PID $(ksnapd_pid), reader $(ksnap_stat reader)"
	fi
	check "ksnapd.service is active" active "$(systemctl is-active ksnapd)"
	check "systemd saw the old ksnapd end cleanly (no failure)" "" \
		"$(journalctl -u ksnapd --after-cursor="$_c" -o cat --no-pager | grep -E 'Failed with result|Main process exited, code=(killed|dumped)|status=[1-9]' | head -n 1)"
	_new=$(ksnapd_pid)
	poll 60 rows_from "$_cr" "$_new" ||
		fail "the new ksnapd's rows reach the journal" "a row from PID $_new after the restart" "none after 60 s"
	echo 0 > $KSNAP_SYS/enable
	end_collection "restart" "$_c" 2 "$_out" || return 1
	check "ksnap-verify exits 0 over the two streams" 0 $verify_status
	[ $verify_status -eq 0 ] || show "$(tail -n 14 $_out.verify)"
	check_lines "the journal holds two streams" 1 ": 2 streams" "$(tail -n 1 $_out.verify)"
	ksnap-verify --stream 2 --tsv $_out.2.tsv $_out.journal > /dev/null 2>&1
	_r1=$(stats_key $_out.tsv total_snapshots)
	_r2=$(stats_key $_out.2.tsv total_snapshots)
	_f=$(stats_key $_out.2.tsv ksnapd_first_position)
	check "the first ksnapd wrote STATS before it exited" 1 "$(grep -c '^STATS' $_out.tsv)"
	check "the new ksnapd resumed where the first stopped reading (first_position = the first stream's rows)" "$_r1" "$_f"
	if _id=$(identity $_out.2.tsv); then pass "STATS identity across the journal: $_id ($_r1 of them rows of the first stream)"; else fail "STATS identity across the journal" "taken = rows + counted" "$_id"; fi
	check "the module's own count agrees" "$(ksnap_stat taken)" "$(stats_key $_out.2.tsv ksnap_snapshots_taken)"
	info "streams: $_r1 rows, then $_r2 rows resumed at position $_f"
}

# set_knobs METRICS CGROUPS PERIOD-US: the knobs, which change only while
# no reader has the device (ksnapd stopped, then started again).  A
# per-cgroup metric needs cgroups first; an empty list needs none of them.
set_knobs() { # METRICS CGROUPS PERIOD-US
	systemctl stop ksnapd
	if [ -n "$2" ]; then
		echo "$2" > $KSNAP_SYS/cgroups && echo "$1" > $KSNAP_SYS/metrics
	else
		echo "$1" > $KSNAP_SYS/metrics && echo "$2" > $KSNAP_SYS/cgroups
	fi && echo "$3" > $KSNAP_SYS/period_us
	_st=$?
	systemctl start ksnapd
	return $_st
}
