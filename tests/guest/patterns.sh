# SPDX-License-Identifier: MIT
# Guest half of the cgroup pattern test.  A pattern in the cgroups list
# ('*' within a component, '**' across components) is expanded at a
# configuration and again at every start: the columns of a collection name
# exactly the cgroups that matched when it started.  The knob reads back
# the patterns as written.  A bad pattern is refused with EINVAL and a
# kernel log line naming it; so is one that would configure too many
# cgroups.  Entries that overlap give a cgroup one column per metric, in
# the ring and in the stream, and count it once.  Matches without the
# memory controller are left out of the memory metrics, not refused.
TEST=patterns
. /guest/tests/lib.sh
S=$KSNAP_SYS
P=/sys/module/ksnap/parameters
WAIT_S=${WAIT_S:-30}

unload
for d in /system.slice/a.service /system.slice/b.service/sub \
	/system.slice/c.scope \
	/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podX.slice/cri-containerd-ID.scope \
	/kubepods.slice/kubepods-besteffort.slice/other.slice \
	/machine.slice/libpod-ID.scope /machine.slice/other.scope; do
	mkdir -p $CG$d
done

# cols NAME: start, a few snapshots, stop; the cgroups the collection's
# columns name (the header of a slice of it: overflow=overwrite), sorted,
# blank-separated.
cols() {
	_st=$(guestprobe write $S/enable 1)
	if [ "$_st" != ok ]; then
		echo "start: $_st"
		return
	fi
	wait_samples 5 >/dev/null
	guestprobe write $S/enable 0 >/dev/null
	ksnapd --slice -10s -o /out/$1.tsv 2> /out/$1.err
	header_cgroups /out/$1.tsv
}

# header_cgroups FILE: the cgroups a stream's header names, sorted,
# blank-separated.
header_cgroups() {
	grep '^Time (ns)' "$1" | tr '\t' '\n' |
		sed -n 's/^cpu\.stat\.usage\[\(.*\)\]$/\1/p' | sort | tr '\n' ' ' |
		sed 's/ $//'
}

# set_cgroups LIST: write it, ok or the error's name.
set_cgroups() {
	guestprobe write $S/cgroups "$1"
}

modprobe ksnap metrics=cpu.stat.usage 'cgroups=/system.slice/*.service' overflow=overwrite \
	cgroup_depth=1 period_us=1000
check "load with a pattern in cgroups=" 0 $?
check "the knob reads back the pattern as written" '/system.slice/*.service' \
	"$(cat $S/cgroups)"
check "cgroup_depth reads back" 1 "$(cat $P/cgroup_depth)"

# --- each form ----------------------------------------------------------------
check "'*' as part of a component: /system.slice/*.service" \
	"/system.slice/a.service /system.slice/b.service" "$(cols service)"
check "written: '**' then more components" ok \
	"$(set_cgroups '/kubepods.slice/**/*.scope')"
check "'**' followed by more: /kubepods.slice/**/*.scope, any depth" \
	"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podX.slice/cri-containerd-ID.scope" \
	"$(cols kubepods)"
check "written: libpod-*.scope" ok "$(set_cgroups '/machine.slice/libpod-*.scope')"
check "/machine.slice/libpod-*.scope" "/machine.slice/libpod-ID.scope" \
	"$(cols libpod)"
check "written: a trailing '**'" ok "$(set_cgroups '/system.slice/**')"
check "/system.slice/** with cgroup_depth=1: itself and one level" \
	"/system.slice /system.slice/a.service /system.slice/b.service /system.slice/c.scope" \
	"$(cols subtree1)"
echo 2 > $P/cgroup_depth
check "/system.slice/** with cgroup_depth=2, at the next start" \
	"/system.slice /system.slice/a.service /system.slice/b.service /system.slice/b.service/sub /system.slice/c.scope" \
	"$(cols subtree2)"
echo 1 > $P/cgroup_depth
check "written: patterns with a path, overlapping" ok \
	"$(set_cgroups '/system.slice/a.service,/system.slice/*.service,/machine.slice/libpod-*.scope')"
check "a cgroup a path and a pattern both name has one column" \
	"/machine.slice/libpod-ID.scope /system.slice/a.service /system.slice/b.service" \
	"$(cols mixed)"
check "the knob reads back the list as written" \
	'/system.slice/a.service,/system.slice/*.service,/machine.slice/libpod-*.scope' \
	"$(cat $S/cgroups)"

# --- every start looks again ----------------------------------------------
check "written: /system.slice/*.service" ok "$(set_cgroups '/system.slice/*.service')"
check "before: a.service and b.service" \
	"/system.slice/a.service /system.slice/b.service" "$(cols before)"
mkdir $CG/system.slice/d.service
check "a cgroup made while stopped is in the next start's columns" \
	"/system.slice/a.service /system.slice/b.service /system.slice/d.service" \
	"$(cols created)"
# Earlier tests of a group may leave cgroups dying for reasons of their own
# (page cache): the count before this removal is the baseline.
dying_base=$(sed -n 's/^nr_dying_descendants //p' $CG/cgroup.stat)
rmdir $CG/system.slice/a.service
check "a cgroup removed while stopped is gone from the next start's columns" \
	"/system.slice/b.service /system.slice/d.service" "$(cols removed)"
check "the knob still reads back the pattern, not what it matched" \
	'/system.slice/*.service' "$(cat $S/cgroups)"
check "nr_dying_descendants back to $dying_base: the removed cgroup is not held" ok \
	"$(wait_for --quiet "the removed cgroup freed" $WAIT_S sh -c "[ \$(sed -n 's/^nr_dying_descendants //p' $CG/cgroup.stat) -le $dying_base ]" && echo ok || echo "$seen; $(cat $CG/cgroup.stat | tr '\n' ' ')")"

rmdir $CG/system.slice/d.service

# --- a pattern that matches nothing ---------------------------------------
klog_mark
check "a pattern matching nothing is accepted" ok "$(set_cgroups '/none.slice/*')"
check_lines "the kernel log says it matches nothing, naming it" 1 \
	"pattern '/none.slice/*' matches no cgroup" "$(klog_since)"
klog_mark
check "a start with no column at all is refused" EINVAL \
	"$(guestprobe write $S/enable 1)"
check_lines "the kernel log names the patterns" 1 \
	"the cgroup patterns '/none.slice/*' match no cgroup" "$(klog_since)"
mkdir -p $CG/none.slice/x
check "once something matches, the start takes it" "/none.slice/x" \
	"$(cols none)"
rmdir $CG/none.slice/x $CG/none.slice

# --- refusals -------------------------------------------------------------
long="/$(printf '%0120d' 0)/*.scope"
for bad in '/a//*' '/a/*/' '/a/***' '/a/x**y' '/a/b**' '/a/./*' '/a/../*' \
	"$long" '/*/*/*/*/*/*/*/*/*' 'a/*'; do
	klog_mark
	check "refused with EINVAL: '$bad'" EINVAL "$(set_cgroups "$bad")"
	check_lines "the kernel log names '$bad'" ">0" "'$bad'" "$(klog_since)"
done
check "a refused list leaves the configuration" '/none.slice/*' "$(cat $S/cgroups)"

# Too many: more cgroups than a configuration may hold.
MAXCG=2048	# KSNAP_MAX_CGROUPS
mkdir -p $CG/many
# One mkdir for them all: a process per cgroup takes half a minute under TCG.
seq 0 $MAXCG | sed "s|^|$CG/many/c|" | xargs mkdir
check "$((MAXCG + 1)) cgroups made" $((MAXCG + 1)) "$(ls -d $CG/many/c*/ | wc -l)"
klog_mark
check "a pattern matching $((MAXCG + 1)) cgroups is refused" EINVAL \
	"$(set_cgroups '/many/*')"
check_lines "the kernel log names it and the count over" 1 \
	"pattern '/many/*' matches $((MAXCG + 1)) cgroups, 1 more than" "$(klog_since)"
rmdir $CG/many/c$MAXCG
check "$MAXCG fit" ok "$(set_cgroups '/many/*')"
check "but with a path more, one over again" EINVAL \
	"$(set_cgroups '/system.slice/b.service,/many/*')"
mkdir $CG/many/c$MAXCG
klog_mark
check "a start that finds $((MAXCG + 1)) is refused" EINVAL \
	"$(guestprobe write $S/enable 1)"
check "and sampling has not started" 0 "$(cat $S/enable)"
check_lines "the kernel log names the pattern and the count over" 1 \
	"pattern '/many/*' matches $((MAXCG + 1)) cgroups, 1 more than" "$(klog_since)"
echo 0 > $P/cgroup_depth
check "cgroup_depth takes 0" 0 "$(cat $P/cgroup_depth)"
check "cgroup_depth refuses 33" 1 \
	"$(echo 33 > $P/cgroup_depth 2>/dev/null; echo $?)"
check "cgroup_depth refuses a word" 1 \
	"$(echo two > $P/cgroup_depth 2>/dev/null; echo $?)"
check "and keeps its value" 0 "$(cat $P/cgroup_depth)"
unload
seq 0 $MAXCG | sed "s|^|$CG/many/c|" | xargs rmdir
rmdir $CG/many

# --- a reader open: its record size stays ----------------------------------
# A configuration with patterns lays its records out as wide as the ring
# keeps 128 of (8187 columns in the default ring), for the cgroups a
# running collection finds.  A reader open keeps them: a start whose
# matches now need more columns than that is refused, one with fewer goes.
# ksnapd --start holds the device as it starts; with patterns it starts
# first, so the start may lay records out for what matches now.  Ten
# counters a cgroup: 819 cgroups are 8190 columns.
W=/wide
WM=cpu.stat.usage,cpu.stat.usage_self,memory.current,memory.min,memory.low,memory.high,memory.max,memory.events.low,memory.events.high,memory.events.max
mkdir $CG$W
echo +memory > $CG$W/cgroup.subtree_control
mkdir $CG$W/c1
modprobe ksnap metrics=$WM "cgroups=$W/*" period_us=100000 overflow=overwrite
check "load: ten counters of a pattern's cgroups" "0 10" "$? $(ksnap_plan columns)"
guestprobe hold > /tmp/hold.out 2>&1 &
hpid=$!
wait_for "the reader holds the device" $WAIT_S grep -q held /tmp/hold.out
seq 2 819 | sed "s|^|$CG$W/c|" | xargs mkdir
klog_mark
check "with a reader open, a start whose 819 matches need larger records is refused" \
	EBUSY "$(guestprobe write $S/enable 1)"
check_lines "the kernel log says why" 1 \
	"the cgroup patterns now give 8190 columns, more than the 8187 the open reader's records hold" \
	"$(klog_since)"
rmdir $CG$W/c819
check "with a reader open, a start whose 818 matches fit the records goes" ok \
	"$(guestprobe write $S/enable 1)"
check "its set is 8180 columns" 8180 "$(ksnap_plan columns)"
check "and stops" ok "$(guestprobe write $S/enable 0)"
kill $hpid
wait $hpid 2>/dev/null
wait_for "the reader gone" $WAIT_S reader_is none >/dev/null
mkdir $CG$W/c819
ksnapd --once --start --stop-on-exit -o /out/kstart.tsv 2> /out/kstart.err &
kpid=$!
wait_rows /out/kstart.tsv 5
kill -TERM $kpid
wait_pid $kpid $WAIT_S
st=$?
[ $st -eq 0 ] || info "ksnapd said: $(tr '\n' ' ' < /out/kstart.err)"
check "ksnapd --start, with more matches than the last records held, exits 0" \
	0 "$st"
check "and its stream's header names every match" 819 \
	"$(header_cgroups /out/kstart.tsv | wc -w)"
check "and the collection is stopped" 0 "$(cat $S/enable)"
unload
ls -d $CG$W/c[0-9]* | xargs rmdir
rmdir $CG$W

# --- overlapping entries: a cgroup once per metric ------------------------
# Entries that name the same cgroups (a path and patterns, patterns among
# themselves): each (metric, cgroup) column once, in the ring's column
# table and in the stream's header, the cgroups in the order they first
# appear (paths, then each pattern's own matches sorted by path), at load
# and after followed cgroups appear under several patterns at once; and
# each cgroup counted once in what the start admits (admit_start, lib.sh)
# and in stats/cgroups_skipped.
O=/ov
mkdir -p $CG$O
echo +memory > $CG$O/cgroup.subtree_control
mkdir $CG$O/a.service $CG$O/b.service $CG$O/x.scope

# twice LIST: the words LIST holds more than once, blank-separated.
twice() {
	echo "$1" | tr ' \t' '\n\n' | grep . | sort | uniq -d | tr '\n' ' ' |
		sed 's/ $//'
}

# ring_cgroups_are LIST: the current set's cpu.stat.usage columns name
# exactly LIST, in that order, and no column is there twice.
ring_cgroups_are() {
	_rc=$(ring_columns)
	_cg=$(echo "$_rc" | tr ' ' '\n' |
		sed -n 's/^cpu\.stat\.usage\[\(.*\)\]$/\1/p' | tr '\n' ' ' |
		sed 's/ $//')
	echo "the ring's columns: '$_rc'"
	[ "$_cg" = "$1" ] && [ -z "$(twice "$_rc")" ]
}

# header_twice FILE: the columns FILE's header names more than once.
header_twice() {
	twice "$(grep '^Time (ns)' "$1" | tr '\t' ' ')"
}

modprobe ksnap metrics=cpu.stat.usage,memory.current \
	"cgroups=$O/*,$O/a.service,$O/**,$O/*.service" cgroup_depth=1 \
	discover_ms=100 overflow=overwrite period_us=2000
check "load with a path and three patterns that overlap" 0 $?
if admit_start 0 2 5 12; then
	pass "start: $admitted cgroups admitted"
	wait_samples 3
	check_wait "at load, the ring's columns name each cgroup once, in the order of first appearance" \
		$WAIT_S ring_cgroups_are "$O/a.service $O/b.service $O/x.scope $O"
	check "one memory.current column per cgroup too" 4 \
		"$(ring_columns | tr ' ' '\n' | grep -c '^memory\.current\[')"
	mkdir $CG$O/c01.service
	check_wait "a followed cgroup three patterns match joins the set once" \
		$WAIT_S ring_cgroups_are "$O/a.service $O/b.service $O/c01.service $O/x.scope $O"
	check "stats: cgroups_found counts it once" 1 "$(ksnap_stat cgroups_found)"
	# Up to the room: $admitted cgroups, c01.service .. as many as it takes.
	want="$O/a.service $O/b.service $O/c01.service"
	i=2
	while [ $i -le $((admitted - 4)) ]; do
		mkdir $CG$O/c$(printf %02d $i).service
		want="$want $O/c$(printf %02d $i).service"
		i=$((i + 1))
	done
	check_wait "up to the room, each followed cgroup joins once" \
		$WAIT_S ring_cgroups_are "$want $O/x.scope $O"
	check "stats: cgroups_skipped: the room ($admitted cgroups) holds them all" 0 \
		"$(ksnap_stat cgroups_skipped)"
	mkdir $CG$O/c$(printf %02d $i).service
	check_wait "one more than the room: the last pattern's own match is left out" \
		$WAIT_S ring_cgroups_are "$want $O/c$(printf %02d $i).service $O/x.scope"
	check "stats: cgroups_skipped counts the one left out, once" 1 \
		"$(ksnap_stat cgroups_skipped)"
	check "stop" ok "$(guestprobe write $S/enable 0)"
fi
rmdir $CG$O/c[0-9]*.service

rm -f /out/ov.tsv*
ksnapd --once -o /out/ov.tsv 2> /out/ov.err &
kpid=$!
wait_attached
check "ksnapd: start" ok "$(guestprobe write $S/enable 1)"
wait_rows /out/ov.tsv 3
mkdir $CG$O/c.service
wait_line /out/ov.tsv.2 "cpu.stat.usage[$O/c.service]"
wait_rows /out/ov.tsv.2 3
check "ksnapd: stop" ok "$(guestprobe write $S/enable 0)"
wait_pid $kpid $WAIT_S
st=$?
[ $st -eq 0 ] || info "ksnapd said: $(tr '\n' ' ' < /out/ov.err)"
check "ksnapd --once exits 0" 0 $st
check "the stream's header names each column once" "" \
	"$(header_twice /out/ov.tsv)"
check "and each cgroup" "$O $O/a.service $O/b.service $O/x.scope" \
	"$(header_cgroups /out/ov.tsv)"
check "the followed set's stream names each column once" "" \
	"$(header_twice /out/ov.tsv.2)"
check "and each cgroup, the new one too" \
	"$O $O/a.service $O/b.service $O/c.service $O/x.scope" \
	"$(header_cgroups /out/ov.tsv.2)"
unload
rmdir $CG$O/a.service $CG$O/b.service $CG$O/c.service $CG$O/x.scope $CG$O

# --- matches without the memory controller: left out, not refused ---------
# A threaded cgroup has no memory css of its own (memory is a domain
# controller), nor has one whose parent does not enable +memory.  A
# pattern that reaches them leaves them out of a configuration with memory
# metrics (a log line each, stats/cgroups_unreadable) and still samples
# and follows the other matches; the container group keeps its memory
# metrics; cpu.stat.usage alone samples them all; a path to one is
# refused, saying why and what to do.
T=/kthr
mkdir $CG$T
echo +memory +cpu > $CG$T/cgroup.subtree_control
# The memoryless ones first in the walk's order, and a start that admits
# a few cgroups (admit_start, lib.sh): they must take none of that room.
mkdir $CG$T/thr $CG$T/nomem $CG$T/mem
echo +memory +cpu > $CG$T/mem/cgroup.subtree_control
echo +cpu > $CG$T/thr/cgroup.subtree_control
echo +cpu > $CG$T/nomem/cgroup.subtree_control
mkdir $CG$T/mem/a $CG$T/thr/t $CG$T/nomem/n
echo threaded > $CG$T/thr/t/cgroup.type
check "$T/thr/t is a threaded cgroup" threaded "$(cat $CG$T/thr/t/cgroup.type)"
klog_mark
modprobe ksnap metrics=memory.current,cpu.stat.usage "cgroups=$T/*/*" \
	discover_ms=100 overflow=overwrite period_us=2000
check "load: a pattern that matches a threaded cgroup and one without memory, with memory.current" 0 $?
check_lines "the threaded match is left out, and the log says why" 1 \
	"'$T/thr/t' has no memory controller of its own (a threaded cgroup: memory is a domain controller): the memory metrics leave it out" \
	"$(klog_since)"
check_lines "so is the one whose parent does not enable memory" 1 \
	"'$T/nomem/n' has no memory controller of its own (its parent does not enable +memory" \
	"$(klog_since)"
admit_start 0 2 2 12 && pass "start: $admitted cgroups admitted"
check_wait "the ring's columns name the match with memory only" \
	$WAIT_S ring_cgroups_are "$T/mem/a"
# Cgroups with memory up to the room: mem/b01 .. as many as it takes.
mem="$T/mem/a"
i=1
while [ $i -lt "${admitted:-2}" ]; do
	mkdir $CG$T/mem/b$(printf %02d $i)
	mem="$mem $T/mem/b$(printf %02d $i)"
	i=$((i + 1))
done
check_wait "cgroups made under the pattern are followed all the same, the room (${admitted:-none} cgroups) all theirs" \
	$WAIT_S ring_cgroups_are "$mem"
check "stats: cgroups_unreadable counts the two left out" 2 \
	"$(ksnap_stat cgroups_unreadable)"
check "stats: cgroups_skipped does not" 0 "$(ksnap_stat cgroups_skipped)"
mkdir $CG$T/thr/t2
echo threaded > $CG$T/thr/t2/cgroup.type
unreadable_is() { # N
	echo "cgroups_unreadable $(ksnap_stat cgroups_unreadable)"
	[ "$(ksnap_stat cgroups_unreadable)" = "$1" ]
}
check_wait "a threaded cgroup made while running is counted at the next rescan" \
	$WAIT_S unreadable_is 3
check "and the set is unchanged" yes \
	"$(ring_cgroups_are "$mem" >/dev/null && echo yes || echo no)"
check "stop" ok "$(guestprobe write $S/enable 0)"
unload

modprobe ksnap metrics=container "cgroups=$T/*/*" overflow=overwrite
check "load: the container group, with the same pattern" 0 $?
check "start" ok "$(guestprobe write $S/enable 1)"
check "the container group keeps memory.current for the match with memory" yes \
	"$(ring_columns | tr ' ' '\n' | grep -qx "memory\.current\[$T/mem/a\]" && echo yes || echo no)"
check "stop" ok "$(guestprobe write $S/enable 0)"
unload

modprobe ksnap metrics=container "cgroups=$T/thr/*" overflow=overwrite
check "load: the container group, a pattern that matches threaded cgroups only" 0 $?
check "start" ok "$(guestprobe write $S/enable 1)"
info "the ring's columns: $(ring_columns)"
check "the group samples their cpu.stat.usage, without its memory metrics" "yes 0" \
	"$(ring_columns | tr ' ' '\n' | grep -qx "cpu\.stat\.usage\[$T/thr/t\]" && echo yes || echo no) $(ring_columns | tr ' ' '\n' | grep -c '^memory\.\(current\|stat\.\|events\.\)')"
check "stop" ok "$(guestprobe write $S/enable 0)"
unload

modprobe ksnap metrics=cpu.stat.usage "cgroups=$T/*/*" overflow=overwrite
check "load: cpu.stat.usage alone, the same pattern" 0 $?
check "start" ok "$(guestprobe write $S/enable 1)"
check_wait "cpu.stat.usage samples every match, threaded ones too" \
	$WAIT_S ring_cgroups_are "$mem $T/nomem/n $T/thr/t $T/thr/t2"
check "stop" ok "$(guestprobe write $S/enable 0)"
unload

klog_mark
modprobe ksnap metrics=memory.current cgroups=$T/thr/t 2>/dev/null
rc=$?
check "load: memory.current of a threaded cgroup named by path is refused" yes \
	"$([ $rc -ne 0 ] && echo yes || echo no)"
check_lines "the log names it, says why and what to do" ">0" \
	"'$T/thr/t' has no memory controller of its own (a threaded cgroup: memory is a domain controller), needed by memory.current: name its domain cgroup instead" \
	"$(klog_since)"
unload
rmdir $CG$T/thr/t $CG$T/thr/t2 $CG$T/thr $CG$T/nomem/n $CG$T/nomem \
	$CG$T/mem/a $CG$T/mem/b[0-9]* $CG$T/mem $CG$T
finish
