# Guest half of the width test: WIDTH_CGROUPS cgroups (default 2000) of 4
# counters each (memory.current, cpu.stat.usage, memory.stat.anon,
# memory.stat.file) sampled at 10 ms for WIDTH_SECS (default 60) on 2 vCPUs.
# A configuration holds at most 1024 cgroups and a set 4096 columns, so:
#   refused   a load whose pattern matches more than 1024 cgroups is
#             refused (EINVAL) with a log line that says to narrow it
#   followed  a collection whose pattern matched one cgroup at its start,
#             with cgroups_max=1024: the cgroups made then join it at the
#             next rescans, as many as its records have room for (4 columns
#             each beside pgfault: 1023) and its read bound pays for; the
#             rest are skipped and counted (stats/cgroups_skipped); the
#             sampled width is printed
#   bound     the published reads (read_recent_ns, read_max_ns) stay
#             within read_bound_ns, no overrun stop; the streams verify,
#             taken = rows + lost
# The read bound is raised to the period here, as in every guest test
# (lib.sh): a TCG guest reads 10 to 100 times slower than a machine.
# width-smoke.sh runs it with 200 cgroups for 10 s.
# guest: --mem 1024
TEST=${TEST:-width}
. /guest/tests/lib.sh
S=$KSNAP_SYS
WAIT_S=${WAIT_S:-120}
D=/ksnapwidth
WIDTH_CGROUPS=${WIDTH_CGROUPS:-2000}
WIDTH_SECS=${WIDTH_SECS:-60}
OUT=/tmp/width
M=pgfault,memory.current,cpu.stat.usage,memory.stat.anon,memory.stat.file
info "width: $WIDTH_CGROUPS cgroups x 4 counters at 10 ms for $WIDTH_SECS s on $(nproc) CPUs"

stat_is() { # KEY VALUE
	_v=$(ksnap_stat "$1")
	echo "$1 ${_v:-none} (want $2)"
	[ "$_v" = "$2" ]
}

# sampled_plus_skipped N: the last rescan's set and its skipped cgroups
# are the N made (plus keep).
sampled_plus_skipped() {
	_c=$(ksnap_plan columns)
	_k=$(ksnap_stat cgroups_skipped)
	_n=$(( (${_c:-1} - 1) / 4 + ${_k:-0} ))
	echo "columns ${_c:-none}, skipped ${_k:-none}: $_n cgroups (want $1)"
	[ "$_n" = "$1" ]
}

unload
mkdir -p $CG$D $OUT
echo +memory +cpu > $CG$D/cgroup.subtree_control
mkdir $CG$D/keep
base=$(dying)

# --- followed: the cgroups made while sampled --------------------------------
# Room for 1024 cgroups: 4097 columns wanted, the records hold 4096.
modprobe ksnap metrics=$M "cgroups=$D/*" period_us=10000 discover_ms=100 \
	cgroups_max=1024 ring_kb=65536
check "load: 4 counters of a pattern's cgroups at 10 ms, cgroups_max=1024" 0 $?
ksnapd --once -o $OUT/w.tsv 2> /out/ksnapd.err &
kpid=$!
wait_attached
check "start" ok "$(guestprobe write $S/enable 1)"
wait_rows $OUT/w.tsv 3
info "width: at the start: columns $(ksnap_plan columns), read estimate $(ksnap_stat read_estimate_ns) ns, bound $(ksnap_stat read_bound_ns) ns"

read -r t0 _ < /proc/uptime
seq 1 "$WIDTH_CGROUPS" | sed "s|^|$CG$D/w|" | xargs mkdir
check "$WIDTH_CGROUPS cgroups made" "$WIDTH_CGROUPS" "$(ls -d $CG$D/w* | wc -l)"
check_wait "the rescans take them in: the set's cgroups and the skipped ones are all $((WIDTH_CGROUPS + 1))" \
	$WAIT_S sampled_plus_skipped $((WIDTH_CGROUPS + 1))
cols=$(ksnap_plan columns)
skipped=$(ksnap_stat cgroups_skipped)
sampled=$(( (cols - 1) / 4 ))
info "width: sampled $sampled cgroups ($cols columns), skipped $skipped"
if [ $((WIDTH_CGROUPS + 1)) -le 1023 ]; then
	check "every cgroup is sampled when they fit (none skipped)" 0 "$skipped"
else
	ge "the set holds at most the records' room (1023 cgroups)" 1023 "$sampled"
fi

# Sampling at full width, for WIDTH_SECS by the guest's clock.
t_end=$(( $(uptime_s) + WIDTH_SECS ))
while [ "$(uptime_s)" -lt $t_end ] && [ "$(ksnap_stat state)" = running ]; do
	# A span that must pass by definition: the sampling run's length.
	usleep 500000
done
read -r t1 _ < /proc/uptime
check "still running after $WIDTH_SECS s: no overrun stop" "running none" \
	"$(ksnap_stat state) $(ksnap_stat stop_reason)"
recent=$(ksnap_stat read_recent_ns)
bound=$(ksnap_stat read_bound_ns)
rmax=$(ksnap_stat read_max_ns)
taken=$(ksnap_stat taken)
rsum=$(ksnap_stat read_sum_ns)
info "width: read: recent $recent ns, max $rmax ns, mean $((rsum / (taken ? taken : 1))) ns, bound $bound ns; taken $taken, missed $(ksnap_stat missed), set changes $(ksnap_stat set_changes)"
check "the last second's longest read is within the bound ($recent <= $bound ns)" yes \
	"$([ "${recent:-x}" -le "${bound:-0}" ] 2>/dev/null && echo yes || echo no)"
check "stop" ok "$(guestprobe write $S/enable 0)"
wait_pid $kpid $WAIT_S
check_st "ksnapd --once writes every set and exits 0" 0 $? /out/ksnapd.err
taken=$(ksnap_stat taken)

# --- the streams ----------------------------------------------------------------
stat_of() { # FILE KEY
	grep 'STATS	' "$1" | tail -n 1 | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p"
}
streams=$(ls $OUT | sed -n 's/^w\.tsv$/w.tsv 1/p; s/^w\.tsv\.\([0-9]*\)$/w.tsv.\1 \1/p' |
	sort -n -k 2 | cut -d' ' -f1)
total=0 bad=0 last=""
for f in $streams; do
	p=$OUT/$f
	ksnap-verify $p > /out/$f.verify 2>&1 || {
		bad=$((bad + 1))
		info "ksnap-verify rejects $f: $(tail -n 3 /out/$f.verify | tr '\n' '|')"
	}
	r=$(rows $p)
	[ "$(stat_of $p ksnap_snapshots_taken)" = \
		"$((r + $(stat_of $p ksnap_snapshots_lost) + $(stat_of $p ksnapd_first_position)))" ] ||
		bad=$((bad + 1))
	total=$((total + r))
	last=$p
done
widest=$(for f in $streams; do grep -m1 '^Time (ns)' $OUT/$f | tr '\t' '\n' | grep -c "\[$D/"; done | sort -n | tail -n 1)
info "width: $(echo $streams | wc -w) streams, $total rows, $(stat_of $last ksnap_snapshots_lost) lost, taken $taken; widest header $widest cgroup columns; $(( ${t1%.*} - ${t0%.*} )) s from the mkdirs to the stop"
check "every stream verifies, its taken = rows + lost + the rows before it" 0 $bad
check "the streams' rows and the last one's lost are the collection's taken" \
	"$taken" "$((total + $(stat_of $last ksnap_snapshots_lost)))"
check "the widest stream names the sampled cgroups' 4 columns each" \
	$((sampled * 4)) "$widest"
rm -rf $OUT
unload

# --- refused: more matches than a configuration holds ---------------------
if [ $((WIDTH_CGROUPS + 1)) -gt 1024 ]; then
	klog_mark
	modprobe ksnap metrics=$M "cgroups=$D/*" period_us=10000 2>/dev/null
	st=$?
	unload
	check "a load whose pattern matches $((WIDTH_CGROUPS + 1)) cgroups is refused" 1 \
		"$([ $st -ne 0 ] && echo 1 || echo 0)"
	check_lines "the log says to narrow the pattern" 1 \
		"cgroups: pattern '$D/*' matches $((WIDTH_CGROUPS + 1)) cgroups" "$(klog_since)"
fi

ls -d $CG$D/w* | xargs rmdir
rmdir $CG$D/keep $CG$D
check_wait "nr_dying_descendants back to $base" $WAIT_S dying_at_most "$base"
finish
