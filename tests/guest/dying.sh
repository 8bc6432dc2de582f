# SPDX-License-Identifier: MIT
# Guest half of the dying-cgroup test.  A removed cgroup stays "dying"
# (the root's cgroup.stat counts it in nr_dying_descendants) for as long
# as anyone holds a reference to it, and so does its memcg.  The module
# drops its references to a configured cgroup removed while sampled as
# soon as its timer sees it gone, while the collection runs, whether it
# was named by path or matched by a pattern (also when the last match
# goes and the set would be empty); one removed while stopped at the next
# reconfiguration.  A later start or metrics write does not take them
# again.  Its columns stay frozen and its records flagged stale
# meanwhile, and in later collections.
#
# The baseline comes first, without the module: the same cgroups made and
# removed must stop dying on their own.  They hold no page cache (nothing
# ever runs in them), which would keep them dying for reasons of its own.
TEST=dying
. /guest/tests/lib.sh
S=$KSNAP_SYS
WAIT_S=${WAIT_S:-30}
N=100
P=/dying

# make_cgroups: $P/c1 .. $P/c$N, each with its own memcg; prints how many
# have memory.current.
# One mkdir and one rmdir for them all: a process per cgroup is slow under
# TCG.
make_cgroups() {
	seq $N | sed "s|^|$CG$P/c|" | xargs mkdir || return 1
	ls -d $CG$P/c*/memory.current 2>/dev/null | wc -l
}

# remove_cgroups: rmdir them all; prints how many are left.
remove_cgroups() {
	seq $N | sed "s|^|$CG$P/c|" | xargs rmdir
	ls -d $CG$P/c*/ 2>/dev/null | wc -l
}

# secs_since T0: whole seconds since uptime T0.
secs_since() {
	echo $(( $(uptime_s) - $1 ))
}

unload
mkdir -p $CG$P
echo +memory > $CG$P/cgroup.subtree_control
check "the root's subtree_control has memory" yes \
	"$(grep -qw memory $CG/cgroup.subtree_control && echo yes || echo no)"
check "$P's subtree_control has memory" yes \
	"$(grep -qw memory $CG$P/cgroup.subtree_control && echo yes || echo no)"
base=$(dying)
info "nr_dying_descendants at the start: $base"

# --- baseline: no module -----------------------------------------------------
check "baseline: $N cgroups made, each with its memcg" $N "$(make_cgroups)"
check "baseline: all $N removed" 0 "$(remove_cgroups)"
t0=$(uptime_s)
check_wait "baseline: nr_dying_descendants back to $base without the module" \
	$WAIT_S dying_at_most "$base" &&
	info "baseline: back to $(dying) in about $(secs_since $t0) s"
base=$(dying)

# --- with the module ---------------------------------------------------------
check "module: $N cgroups made, each with its memcg" $N "$(make_cgroups)"
list=$(i=1; while [ $i -le $N ]; do printf '%s%s/c%d' "${sep:-}" $P $i; sep=,; i=$((i + 1)); done)
modprobe ksnap metrics=pgfault period_us=1000
check "module: loads" 0 $?
check "module: the $N cgroups are configured" ok "$(guestprobe write $S/cgroups "$list")"
# Columns: pgfault, then memory.current (a single read each) and
# cpu.stat.usage_self (summed over CPUs) of each cgroup.
check "module: memory.current and cpu.stat.usage_self of each" ok \
	"$(guestprobe write $S/metrics pgfault,memory.current,cpu.stat.usage_self)"
check "module: $((2 * N + 1)) columns" "columns $((2 * N + 1))" \
	"columns $(ksnap_plan columns)"
check "module: start" ok "$(guestprobe write $S/enable 1)"
wait_samples 10
klog_mark
check "module: all $N removed while sampled" 0 "$(remove_cgroups)"
# Sampled after the removals: the sampler has seen them gone, and lets
# go of them while the collection runs (their columns keep their values).
t0=$(uptime_s)
check_wait "module: while the collection runs, nr_dying_descendants back to $base: the removed cgroups are let go" \
	$WAIT_S dying_at_most "$base" &&
	info "module: back to $(dying) in about $(secs_since $t0) s, running"
check "module: the collection still runs" running "$(ksnap_stat state)"
wait_samples 10
check "module: stop" ok "$(guestprobe write $S/enable 0)"
check "module: nr_dying_descendants still at $base after the stop" yes \
	"$([ "$(dying)" -le "$base" ] && echo yes || echo no)"
check_lines "module: the kernel log names each removed cgroup once" $N \
	"was removed while sampled" "$(klog_since)"
klog_mark

# A later collection with the removed cgroups still configured starts:
# their columns are frozen and its records flagged stale, as in the
# collection they were removed in.
check "module: a new collection on the removed cgroups starts" ok \
	"$(guestprobe write $S/enable 1)"
guestprobe records 600 > /out/dying.records 2> /out/dying.records.err &
rpid=$!
wait_attached
t0=$(uptime_s)
check_wait "module: nr_dying_descendants still at $base (the start took no reference again)" \
	$WAIT_S dying_at_most "$base" &&
	info "module: at $(dying) after about $(secs_since $t0) s"
wait_samples 10
check "module: and stops" ok "$(guestprobe write $S/enable 0)"
wait_pid $rpid $WAIT_S
check "module: the reader ends after the stop" 0 $?
# Records: "seq time flags pgfault memory.current... usage_self...".
n=$(grep -c '^[0-9]' /out/dying.records)
ge "module: records of the later collection" "$n" 10
check "module: every one flagged KSNAP_REC_STALE" 0 \
	"$(awk '/^[0-9]/ && int($3 / 2) % 2 == 0' /out/dying.records | wc -l)"
check "module: a removed cgroup's memory.current is frozen" 1 \
	"$(awk '/^[0-9]/ { print $5 }' /out/dying.records | sort -u | wc -l)"
check "module: and its cpu.stat.usage_self" 1 \
	"$(awk -v c=$((N + 5)) '/^[0-9]/ { print $c }' /out/dying.records | sort -u | wc -l)"
check "module: pgfault goes on" yes \
	"$([ "$(awk '/^[0-9]/ { print $4 }' /out/dying.records | sort -u | wc -l)" -gt 1 ] && echo yes || echo no)"

# A metrics write keeps the cgroups as they are: no reference taken again.
check "module: metrics rewritten while the cgroups are gone" ok \
	"$(guestprobe write $S/metrics memory.current,pgfault)"
check "module: cgroups still names the removed cgroups" "$list" "$(cat $S/cgroups)"
t0=$(uptime_s)
check_wait "module: nr_dying_descendants at $base after stop, start and a metrics write" \
	$WAIT_S dying_at_most "$base" &&
	info "module: at $(dying) after about $(secs_since $t0) s"
check "module: a collection after the metrics write starts" ok \
	"$(guestprobe write $S/enable 1)"
wait_samples 10
check "module: and stops" ok "$(guestprobe write $S/enable 0)"
check_lines "module: the removals are not logged again" 0 \
	"was removed while sampled" "$(klog_since)"

# Matched by a pattern, with only per-cgroup columns: when the last match
# goes the set would be empty, and is not swapped; the removed cgroups are
# let go all the same, while the collection runs.
check "pattern: memory.current of $P/p*" ok \
	"$(guestprobe write $S/cgroups "$P/p*")"
check "pattern: only per-cgroup columns" ok \
	"$(guestprobe write $S/metrics memory.current)"
i=1
while [ $i -le $N ]; do mkdir $CG$P/p$i; i=$((i + 1)); done
check "pattern: start with $N matches" ok "$(guestprobe write $S/enable 1)"
check "pattern: $N columns" "columns $N" "columns $(ksnap_plan columns)"
wait_samples 10
i=1 bad=0
while [ $i -le $N ]; do rmdir $CG$P/p$i || bad=$((bad + 1)); i=$((i + 1)); done
check "pattern: the last match and all others removed while sampled" 0 $bad
t0=$(uptime_s)
check_wait "pattern: while the collection runs, nr_dying_descendants back to $base" \
	$WAIT_S dying_at_most "$base" &&
	info "pattern: back to $(dying) in about $(secs_since $t0) s, running"
check "pattern: the collection still runs" running "$(ksnap_stat state)"
check "pattern: stop" ok "$(guestprobe write $S/enable 0)"

# Removed while stopped, never sampled gone: held until the next
# reconfiguration, which lets go of them.
M=10
i=1
while [ $i -le $M ]; do mkdir $CG$P/s$i; i=$((i + 1)); done
slist=$(i=1; while [ $i -le $M ]; do printf '%s%s/s%d' "${sep:-}" $P $i; sep=,; i=$((i + 1)); done)
check "stopped: $M new cgroups configured" ok "$(guestprobe write $S/cgroups "$slist")"
check "stopped: with memory.current" ok "$(guestprobe write $S/metrics memory.current)"
i=1 bad=0
while [ $i -le $M ]; do rmdir $CG$P/s$i || bad=$((bad + 1)); i=$((i + 1)); done
check "stopped: all $M removed" 0 $bad
ge "stopped: held by the module, they are dying" "$(dying)" $M
check "stopped: metrics rewritten while they are gone" ok \
	"$(guestprobe write $S/metrics memory.current,cpu.stat.usage)"
check_wait "stopped: nr_dying_descendants back to $base after the metrics write" \
	$WAIT_S dying_at_most "$base"
check "stopped: a collection on them starts" ok "$(guestprobe write $S/enable 1)"
wait_samples 10
check "stopped: and stops" ok "$(guestprobe write $S/enable 0)"
rmmod ksnap
check "module: rmmod" 0 $?
check_wait "nr_dying_descendants at $base after the unload" \
	$WAIT_S dying_at_most "$base"
rmdir $CG$P 2>/dev/null
finish
