# SPDX-License-Identifier: MIT
# Guest half of the memory.stat slot check: on the kernels where ksnap
# reads memory.stat.* through its copy of a table private to
# mm/memcontrol.c (6.12, 7.2, 7.3), the load checks every slot against the node
# counters (kmod/memcgproof.c, docs/kernels.md).
#   scripts/guest --kernel 6.12 --out DIR -- 'sh /guest/tests/memcgproof.sh'
#
# 1. A plain load, with a memory hog (MIB MiB) in a cgroup so that anon is
#    well beyond the tolerance: one log line with the counts; no LRU slot
#    disagrees, one at least is proven (the guest's LRU pages are its
#    tmpfs root and the hog: the file lists may be empty), and so are the
#    default anon and file (the per-slot figures, pr_debug, are shown as
#    "# " lines); every slot the log calls unproven is marked so in
#    the catalogue (ksnapd --list-metrics), every proven one is not;
#    nothing is dropped.
# 2. A load with the test hook memcg_table_skew=1 (every slot read one
#    further on, as a changed kernel table would): one log line says
#    memory.stat.* is not offered and names what disagreed;
#    the catalogue has no memory.stat.*, and selecting one is refused.
# The table, and so the memcg_table_skew parameter, is expected on 6.12,
# 7.2 and 7.3 (an -rt kernel as its base), and only there: a kernel that
# should have it and has not fails.  On a kernel without it, memory.stat.*
# is offered unmarked, and the log has no verdict.
TEST=memcgproof
. /guest/tests/lib.sh

W=/tmp/memcgproof
mkdir -p $W
CGROUP=/ksnapproof
MIB=24
mkdir -p "$CG$CGROUP"
sh -c "echo \$\$ > $CG$CGROUP/cgroup.procs && exec memhog $MIB -" > $W/hog.out 2>&1 &
hog=$!
wait_line $W/hog.out resident

# load ARGS...: modprobe with ARGS; the log lines it wrote in $W/log.
load() {
	unload
	klog_mark
	modprobe ksnap "$@"
	_st=$?
	klog_since > $W/log
	ksnapd --list-metrics > $W/available.txt 2>/dev/null
	return $_st
}

if ! load dyndbg=+p; then
	fail "module loads" "modprobe status 0" "failure"
	finish
	exit
fi
pass "module loads"

case "$(kernel_version)" in
6.12|7.2|7.3) table=yes ;;
*) table=no ;;
esac
have=no
[ -e /sys/module/ksnap/parameters/memcg_table_skew ] && have=yes
check "the slot table (parameter memcg_table_skew) is there exactly on 6.12, 7.2 and 7.3 ($(kernel_version))" $table $have
if [ $have = no ]; then
	n=$(grep -c '^memory\.stat\.' $W/available.txt)
	info "no slot table on $(uname -r): memory.stat.* is read from the kernel's own layout ($n offered)"
	check_lines "no slot verdict is logged" 0 "memory.stat.*" "$(cat $W/log)"
	check_lines "no metric is marked unproven" 0 "slot unproven" "$(cat $W/available.txt)"
	unload
	kill $hog 2>/dev/null
	wait $hog 2>/dev/null
	rmdir "$CG$CGROUP" 2>/dev/null
	finish
	exit
fi

# --- The plain load ---------------------------------------------------------
info "slot figures on $(uname -r) (root memcg, node counters, in pages, KiB or counts):"
grep ': slot [0-9]* reads' $W/log | sed 's/^\[[^]]*\] //; s/^ksnap: //; s/^/#   /'
check_lines "one line gives the verdict" 1 "slots proven against the node counters" "$(cat $W/log)"
show "$(grep 'slots proven' $W/log)"
check_lines "no slot is dropped" 0 " not offered: " "$(cat $W/log)"
lru='memory\.stat\.((in)?active_(anon|file)|unevictable): slot'
check "no LRU slot disagrees" 0 "$(grep -E "$lru" $W/log | grep -c -v -E ': (proven|unproven)$')"
n=$(grep -E "$lru" $W/log | grep -c ': proven$')
[ "$n" -gt 0 ] && pass "an LRU slot at least is proven ($n)" ||
	fail "an LRU slot at least is proven" ">0" "$n"
for m in anon file; do
	check_lines "memory.stat.$m is proven" 1 "memory.stat.$m: slot" "$(grep ': proven$' $W/log)"
done
# The log's verdict and the catalogue's marks agree, slot by slot.
bad=$(awk -F'\t' 'NR == FNR {
		if (match($0, /memory\.stat\.[a-z_]+: slot [0-9]+ reads -?[0-9]+, the node counter -?[0-9]+: [a-z]+$/)) {
			s = substr($0, RSTART, RLENGTH); split(s, w, /[: ]+/)
			v[w[1]] = w[length(w)]
		}
		next
	}
	$1 ~ /^memory\.stat\./ {
		seen[$1] = 1
		marked = index($6, "unproven") > 0
		if (!($1 in v)) print $1 ": no verdict logged"
		else if (marked != (v[$1] == "unproven")) print $1 ": " v[$1] ", description: " $6
	}
	END { for (k in v) if (!(k in seen)) print k ": " v[k] " but not offered" }' $W/log $W/available.txt)
check "each memory.stat.* slot is marked unproven in the catalogue exactly when the log says so" "" "$bad"
[ -n "$bad" ] && show "$bad"
nproven=$(grep -c ': proven$' $W/log)
nunproven=$(grep -c ': unproven$' $W/log)
info "$nproven slots proven, $nunproven unproven"
e=$(guestprobe write $KSNAP_SYS/cgroups "$CGROUP")
check "the cgroup is accepted" ok "$e"
e=$(guestprobe write $KSNAP_SYS/metrics "memory.stat.anon,memory.stat.file")
check "memory.stat.anon and memory.stat.file can be selected" ok "$e"

# --- A shifted table (the test hook) ----------------------------------------
if ! load memcg_table_skew=1 dyndbg=+p; then
	fail "module loads with memcg_table_skew=1" "modprobe status 0" "failure"
	finish
	exit
fi
pass "module loads with memcg_table_skew=1"
check "the hook reads back" 1 "$(cat /sys/module/ksnap/parameters/memcg_table_skew)"
info "slot figures with every slot read one further on:"
grep ': slot [0-9]* reads' $W/log | sed 's/^\[[^]]*\] //; s/^ksnap: //; s/^/#   /'
check_lines "one line says memory.stat.* is not offered" 1 "memory.stat.* not offered: this kernel's memcg statistics table is not the one ksnap knows" "$(cat $W/log)"
show "$(grep 'not offered' $W/log)"
n=$(grep 'not offered' $W/log | grep -c -E 'memory\.stat\.((in)?active_(anon|file)|unevictable) ')
check "it names an LRU slot that disagreed" 1 "$n"
check "the catalogue has no memory.stat.*" 0 "$(grep -c '^memory\.stat\.' $W/available.txt)"
check_lines "the catalogue keeps memory.current" 1 "memory.current	" "$(cat $W/available.txt)"
e=$(guestprobe write $KSNAP_SYS/cgroups "$CGROUP")
check "the cgroup is accepted" ok "$e"
e=$(guestprobe write $KSNAP_SYS/metrics "memory.stat.anon")
check "memory.stat.anon is refused" EINVAL "$e"
e=$(guestprobe write $KSNAP_SYS/metrics "memory.current")
check "memory.current is still accepted" ok "$e"

# The lists are parsed before the proof, so that a bad name fails the load
# at once: a load that names a metric the proof then drops is refused, and
# a group loses the members the proof dropped.
if load memcg_table_skew=1 metrics=memory.stat.anon cgroups=$CGROUP; then
	fail "a load with metrics=memory.stat.anon, which the proof drops, fails" "nonzero status" "status 0"
else
	pass "a load with metrics=memory.stat.anon, which the proof drops, fails"
fi
check_lines "its log names memory.stat.anon" ">0" "unknown metric or group 'memory.stat.anon'" "$(cat $W/log)"
check "no module is left loaded" 1 "$(module_loaded && echo 0 || echo 1)"
if ! load memcg_table_skew=1 metrics=container cgroups=$CGROUP; then
	fail "a load with metrics=container loads" "modprobe status 0" "failure"
else
	ncol=$(ksnap_plan columns) stat=0 i=0
	while [ "$i" -lt "${ncol:-0}" ]; do
		guestprobe column cur $i | sed -n 3p | grep -q '^memory\.stat\.' &&
			stat=$((stat + 1))
		i=$((i + 1))
	done
	info "metrics=container: $ncol columns"
	check "metrics=container: the set has columns" yes "$([ "${ncol:-0}" -gt 0 ] && echo yes || echo no)"
	check "metrics=container: no column is a memory.stat.* metric the proof dropped" 0 "$stat"
fi

unload
check "unloaded" 1 "$(module_loaded && echo 0 || echo 1)"
kill $hog 2>/dev/null
wait $hog 2>/dev/null
rmdir "$CG$CGROUP" 2>/dev/null
finish
