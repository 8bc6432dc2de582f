# SPDX-License-Identifier: MIT
# Containers under systemd and podman, sampled through cgroup patterns by
# the packaged service: a transient service (systemd-run) and a podman
# container (the packaged podman, cgroup v2, the systemd cgroup driver,
# from a busybox root filesystem made here, since the guest has no
# network) each hold 64 MiB in a tmpfs of their own.  A collection through
# the journal has a memory.current column for each, whose values hold the
# 64 MiB and agree with the cgroup's own memory.current read at the end;
# a service started during a collection joins it in the next stream and
# leaves once stopped; once both are stopped and removed, the next
# collection has neither column, and the streams verify each time.
TEST=containers-are-sampled
. /guest/tests/syslib.sh
MIB64=67108864
svc=ksnapt-hold
image=localhost/ksnapt-busybox
out=/out/containers

# memory.current of cgroup PATH (under /sys/fs/cgroup), or nothing.
cg_current() { cat "/sys/fs/cgroup$1/memory.current" 2>/dev/null; }
holds_64m() { # CGROUP-PATH
	_v=$(cg_current "$1")
	[ -n "$_v" ] && [ "$_v" -ge $MIB64 ]
}
# The column index (1-based, awk's) of NAME in the header of TSV, or 0.
column_of() { # TSV NAME
	awk -F '\t' -v n="$2" '$1 == "Time (ns)" { for (i = 2; i <= NF; i++) if ($i == n) { print i; exit } print 0; exit }' "$1"
}
# Smallest and largest value of column COL over the rows of TSV.
column_range() { # TSV COL
	tsv_rows "$1" | awk -F '\t' -v c="$2" \
		'NR == 1 || $c < lo { lo = $c } NR == 1 || $c > hi { hi = $c } END { print lo + 0, hi + 0 }'
}

# --- the workloads ---------------------------------------------------------
systemd-run --unit=$svc --slice=system.slice -p TemporaryFileSystem=/run/ksnapt \
	sh -c "head -c $MIB64 /dev/zero > /run/ksnapt/hold && exec sleep 3600" > $out.systemd-run.log 2>&1
check_st "systemd-run starts a transient service $svc" 0 $? $out.systemd-run.log
svc_cg=/system.slice/$svc.service

rootfs=/tmp/ksnapt-rootfs
rm -rf $rootfs && mkdir -p $rootfs/bin $rootfs/hold
cp /bin/busybox $rootfs/bin/busybox
for a in sh head sleep cat; do ln -s busybox $rootfs/bin/$a; done
tar -C $rootfs -cf /tmp/ksnapt-rootfs.tar . &&
	podman import /tmp/ksnapt-rootfs.tar $image > $out.podman.log 2>&1
check_st "podman imports a busybox root filesystem as $image" 0 $? $out.podman.log
id=$(podman run -d --name ksnapt --network none --tmpfs /hold $image \
	sh -c "head -c $MIB64 /dev/zero > /hold/x && exec sleep 3600" 2>> $out.podman.log)
check_st "podman runs a container from it" 0 $? $out.podman.log
pod_cg=/machine.slice/libpod-$id.scope
info "the container's cgroup: $pod_cg"

if poll 120 holds_64m $svc_cg; then
	pass "the service's cgroup holds 64 MiB ($(cg_current $svc_cg) bytes)"
else
	fail "the service's cgroup holds 64 MiB within 120 s" ">= $MIB64" "'$(cg_current $svc_cg)' in $svc_cg"
fi
if poll 120 holds_64m "$pod_cg"; then
	pass "the container's cgroup holds 64 MiB ($(cg_current "$pod_cg") bytes)"
else
	fail "the container's cgroup holds 64 MiB within 120 s" ">= $MIB64" "'$(cg_current "$pod_cg")' in $pod_cg"
	show "$(podman ps -a 2>&1; cat $out.podman.log)"
fi

# --- a collection with both ------------------------------------------------
patterns=/system.slice/ksnapt-*.service,/machine.slice/libpod-*.scope
set_knobs memory.current,nr_free_pages "$patterns" 10000
check_st "the knobs take metrics=memory.current,nr_free_pages and the two patterns" 0 $?
collect_to_journal "a collection with the service and the container" 5 $out.with || exit 1
check "ksnap-verify accepts the stream with both" 0 $verify_status
if id_line=$(identity $out.with.tsv); then pass "STATS identity: $id_line"; else fail "STATS identity adds up" "taken = rows + counted" "$id_line"; fi
for cg in $svc_cg "$pod_cg"; do
	now=$(cg_current "$cg")
	col=$(column_of $out.with.tsv "memory.current[$cg]")
	if [ "${col:-0}" -eq 0 ]; then
		fail "the stream has a column memory.current[$cg]" "that column" \
			"$(awk -F '\t' '$1 == "Time (ns)"' $out.with.tsv)"
		continue
	fi
	pass "the stream has a column memory.current[$cg]"
	set -- $(column_range $out.with.tsv "$col")
	lo=$1 hi=$2
	ge "every row of memory.current[$cg] holds the 64 MiB" "$lo" $MIB64
	# Both hold steady: what the cgroup says after the collection is
	# what the rows said, give or take a few pages of the shell.
	if [ -n "$now" ] && [ $((hi - now)) -le 1048576 ] && [ $((now - lo)) -le 1048576 ]; then
		pass "memory.current[$cg] agrees with the cgroup's own file ($lo..$hi against $now)"
	else
		fail "memory.current[$cg] agrees with the cgroup's own file within 1 MiB" "$now" "$lo..$hi"
	fi
done
figure "container-columns" "$(awk -F '\t' '$1 == "Time (ns)" { print NF - 1; exit }' $out.with.tsv)"

# --- followed while running ---------------------------------------------------
# A service started during a collection joins it within the discovery
# interval (a new column set: the stream ends and the next begins, with
# its column), and leaves it once stopped; the journal then holds three
# streams that ksnap-verify accepts, and across them every snapshot taken
# is a row or counted.
late=ksnapt-late
late_cg=/system.slice/$late.service
# The header lines of the streams after CURSOR.
headers() { ksnapd_journal "$1" | grep "^GVISOR_METRICS	Time (ns)	"; }
last_header_has() { # CURSOR COLUMN
	headers "$1" | tail -n 1 | grep -qF "	$2	"
}
last_header_lacks() { # CURSOR COLUMN (after one that had it)
	headers "$1" | grep -qF "	$2	" && ! last_header_has "$1" "$2"
}
c=$(journal_cursor)
echo 1 > $KSNAP_SYS/enable
poll 60 rows_flowing "$c" || fail "rows of the followed collection reach the journal" "a row" "none after 60 s"
systemd-run --unit=$late --slice=system.slice sleep 3600 > $out.late.log 2>&1
check_st "systemd-run starts $late during the collection" 0 $? $out.late.log
if poll 60 last_header_has "$c" "memory.current[$late_cg]"; then
	pass "the service started during the collection is a column of the next stream"
else
	fail "the service started during the collection becomes a column within 60 s" \
		"memory.current[$late_cg] in a header" "$(headers "$c" | tail -n 1)"
fi
systemctl stop $late
if poll 60 last_header_lacks "$c" "memory.current[$late_cg]"; then
	pass "once stopped, it leaves: the next stream has no column for it"
else
	fail "once stopped, the service leaves the set within 60 s" \
		"a later header without it" "$(headers "$c" | tail -n 1)"
fi
echo 0 > $KSNAP_SYS/enable
n=$(headers "$c" | wc -l)
check "three streams: before, with and after the service" 3 "$n"
end_collection "the followed collection" "$c" "$n" $out.follow || exit 1
check "ksnap-verify accepts every stream of the followed collection" 0 $verify_status
[ $verify_status -eq 0 ] || show "$(tail -n 12 $out.follow.verify)"
rows_all=$(verify_count $out.follow.verify "rows intact")
last_stats=$(grep "^GVISOR_METRICS	STATS	" $out.follow.journal | tail -n 1)
taken=$(echo "$last_stats" | sed -n 's/.*"ksnap_snapshots_taken":\([0-9]*\).*/\1/p')
lost=$(echo "$last_stats" | sed -n 's/.*"ksnap_snapshots_lost":\([0-9]*\).*/\1/p')
check "across the streams, taken (the last STATS) = rows + lost" "${taken:-none}" "$((${rows_all:-0} + ${lost:-0}))"
figure "followed-streams" "$n streams, ${rows_all:-?} rows, taken ${taken:-?}"

# --- both gone --------------------------------------------------------------
systemctl stop $svc > $out.stop.log 2>&1
check_st "systemctl stop $svc" 0 $? $out.stop.log
podman rm -f ksnapt >> $out.stop.log 2>&1
check_st "podman rm -f ksnapt" 0 $? $out.stop.log
gone() { [ ! -d "/sys/fs/cgroup$1" ]; }
poll 60 gone $svc_cg || fail "the service's cgroup is removed" "no $svc_cg" "still there"
poll 60 gone "$pod_cg" || fail "the container's cgroup is removed" "no $pod_cg" "still there"
# A new start expands the patterns again; they match nothing now.
set_knobs memory.current,nr_free_pages "$patterns" 10000
collect_to_journal "a collection after both are removed" 3 $out.without || exit 1
check "ksnap-verify accepts the stream without them" 0 $verify_status
check "the service's and the container's columns are gone: nr_free_pages alone" \
	"Time (ns)	nr_free_pages" "$(awk -F '\t' '$1 == "Time (ns)"' $out.without.tsv)"

# The module's options of configure-module-at-boot, for the tests after.
set_knobs "$TEST_METRICS" "" "$TEST_PERIOD_US"
podman rmi $image > /dev/null 2>&1
end_test
