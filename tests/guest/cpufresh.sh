# SPDX-License-Identifier: MIT
# Guest half of the cpu.stat freshness test: cpu.stat.usage follows the
# CPU time a cgroup's tasks burn without anyone reading its cpu.stat.
# Since 6.16 the kernel folds the per-CPU base statistics into a cgroup's
# cpu.stat usage only when cpu.stat (or a BPF program) asks; a module that
# read the folded value alone would see the burn only at the next read of
# the file.  This test reads cpu.stat only after the collection.
#
# A spinner in a child cgroup ($P/burn) burns about BURN_MS ms of CPU (its
# own /proc/PID/schedstat: the same sum_exec_runtime the cgroup is charged
# with) and is frozen; the child and its parent are sampled throughout:
#  - the child's cpu.stat.usage comes to within a 1 ms and a tenth of
#    the burned time T (the file's own freshness: live since 6.16 for a
#    cgroup without children, the 2 s flush before) while nothing reads
#    cpu.stat, and it rose over the collection by about T (its slope);
#  - after the collection, the child's cpu.stat usage_usec is the last
#    sample's value within 1 ms;
#  - the parent: the same, except on the kernels where a cgroup with
#    children is flushed only by a read of its cpu.stat (before 5.13, and
#    since 6.16: its value may be as old as that read); there only that it
#    never read more than the file says.  The catalogue's description
#    says "may be stale" on those kernels and only on those.
TEST=cpufresh
. /guest/tests/lib.sh
WAIT_S=${WAIT_S:-30}
BURN_MS=${BURN_MS:-400}
W=/tmp/cpufresh
P=/ksnapfresh
C=$P/burn
mkdir -p $W $CG$C

unload
# Both at once: the default metrics need the memory controller.
modprobe ksnap metrics=cpu.stat.usage,cpu.stat.usage_self cgroups=$P,$C \
	period_us=50000
check "module loads with cpu.stat.usage of $P and $C" 0 $?
ksnapd --list-metrics > $W/available.txt
desc=$(awk -F'\t' '$1 == "cpu.stat.usage" { print $6 }' $W/available.txt)
info "cpu.stat.usage: $desc"
parent_fresh=no
kernel_since 5.13 && ! kernel_since 6.16 && parent_fresh=yes
said_stale=no
case "$desc" in
*"may be stale"*) said_stale=yes ;;
esac
check "the catalogue says a parent's cpu.stat.usage may be stale exactly where it may ($(kernel_version): parent fresh $parent_fresh)" \
	$([ $parent_fresh = yes ] && echo no || echo yes) $said_stale
check "start" ok "$(guestprobe write $KSNAP_SYS/enable 1)"
ksnapd -o $W/s.tsv 2> $W/ksnapd.err &
kpid=$!
wait_attached
wait_rows $W/s.tsv 3

# col_last NAME: the last row's value of column NAME of the stream.
col_last() { stream_last $W/s.tsv "$1"; }
# col_first NAME: the first row's value.
col_first() {
	awk -F'\t' -v k="$1" '$1 == "Time (ns)" { for (i = 2; i <= NF; i++) if ($i == k) c = i; next }
		c && $1 ~ /^[0-9]+$/ { print $c + 0; exit }' $W/s.tsv
}
# caught_up NAME T: the last row's NAME is at least T less a tenth and
# 1 ms (ns).
caught_up() {
	_v=$(col_last "$1")
	echo "$1 $_v, burned $2"
	[ "$_v" -ge $(( $2 - $2 / 10 - 1000000 )) ]
}
runtime() { proc_runtime "$1"; }
burned_at_least() {
	_b=$(runtime "$1")
	echo "burned $_b ns"
	[ "$_b" -ge $(( $2 * 1000000 )) ]
}

child0=$(col_first "cpu.stat.usage[$C]")
parent0=$(col_first "cpu.stat.usage[$P]")
sh -c "echo \$\$ > $CG$C/cgroup.procs && exec sh -c 'while :; do :; done'" &
spin=$!
wait_for "the spinner burns $BURN_MS ms" $((WAIT_S * 4)) burned_at_least $spin $BURN_MS
kill -STOP $spin
wait_for "the spinner is stopped" $WAIT_S proc_state $spin T
T=$(runtime $spin)
info "burned $T ns in $C"
# Sampled after the spinner stopped: its time is final.
wait_samples 3
check_wait "the child's cpu.stat.usage reaches the burned time (nothing reads cpu.stat)" \
	$WAIT_S caught_up "cpu.stat.usage[$C]" "$T"
# The parent's value is as of the last flush (about every 2 s): one
# after the burn ended brings it to all of its child's time, which the
# comparison with the file below needs.  (Within a tenth of the burn was
# not enough: a flush during the burn's last milliseconds left the last
# sample 15.8 ms short of the file, in one run of make check.)
parent_has_child() {
	_p=$(col_last "cpu.stat.usage[$P]")
	_c=$(col_last "cpu.stat.usage[$C]")
	echo "parent $_p, child $_c"
	[ "$_p" -ge $((_c - 1000000)) ]
}
if [ $parent_fresh = yes ]; then
	check_wait "the parent's cpu.stat.usage reaches all of its child's at a flush after the burn" \
		$WAIT_S parent_has_child
fi
wait_samples 2
echo 0 > $KSNAP_SYS/enable
wait_line $W/s.tsv "STATS	"
kill $kpid
wait_pid $kpid $WAIT_S
cp $W/s.tsv /out/cpufresh.tsv
child=$(col_last "cpu.stat.usage[$C]")
parent=$(col_last "cpu.stat.usage[$P]")
self=$(col_last "cpu.stat.usage_self[$C]")
rise=$((child - child0))
ok=no
[ $rise -ge $((T - T / 10 - 1000000)) ] && [ $rise -le $((T + 1000000)) ] && ok=yes
check "the child's usage rose by the burned time over the collection ($rise ns, burned $T)" yes $ok
ok=no
[ $child -ge $((self - 1000000)) ] && ok=yes
check "a leaf's usage is at least its usage_self ($child, $self)" yes $ok

# Now, and only now, the files (reading them flushes).
read_usage() {
	awk '$1 == "usage_usec" { print $2 * 1000 }' "$CG$1/cpu.stat"
}
fchild=$(read_usage $C)
fparent=$(read_usage $P)
info "files: $C $fchild, $P $fparent; ours: $child, $parent (at the start $child0, $parent0)"
d=$((fchild - child))
ok=no
[ $d -ge -1000 ] && [ $d -le 1000000 ] && ok=yes
check "the child's last sample is its cpu.stat usage within 1 ms (file - ours $d ns)" yes $ok
d=$((fparent - parent))
ok=no
if [ $parent_fresh = yes ]; then
	[ $d -ge -1000 ] && [ $d -le 1000000 ] && ok=yes
	check "the parent's last sample is its cpu.stat usage within 1 ms (file - ours $d ns)" yes $ok
else
	[ $d -ge -1000 ] && ok=yes
	check "the parent's last sample is at most its cpu.stat usage (as of the last read: file - ours $d ns)" yes $ok
fi
kill -9 $spin 2>/dev/null
wait $spin 2>/dev/null
rmdir $CG$C $CG$P 2>/dev/null
finish
