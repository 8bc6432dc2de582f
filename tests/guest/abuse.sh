# SPDX-License-Identifier: MIT
# Guest half of the abuse test: each bad input answered with an error (or,
# for the consumer page, counted) and nothing changed or broken.
#   tail         values written into the consumer page's tail (behind the
#                producer, far ahead, all ones): counted as bad_tail, the
#                snapshots counted lost, never used as an index
#   mremap       growing a mapping of each region fails (VM_DONTEXPAND)
#   misaligned   mappings that do not start on a region boundary, or at a
#                byte offset, or writable across regions: refused
#   unprivileged uid 65534 cannot open the device or write a knob
#   knobs        every knob fed garbage while stopped: an error, and all
#                knobs read the same before and after; a zero-length
#                write returns 0 and never reaches the store
#   empty        an empty or blank value of metrics (the default
#                list) and cgroups (none) is accepted and reads back as
#                documented, or refused with nothing changed when it
#                would leave a per-cgroup metric without a cgroup
#   params       garbage module parameters: the load fails, nothing loaded
# (device-misuse.sh has the second open, writable maps, mprotect and rmmod;
# bad-params.sh the basic wrong values.)
TEST=abuse
. /guest/tests/lib.sh

enable() {
	guestprobe write $KSNAP_SYS/enable "$1"
}

sys_stat() {
	ksnap_stat "$1"
}

mkdir -p $CG/ksnapabuse
METRICS=pgfault,memory.current
# A small ring (1024 records): a tail "more than a ring behind head" needs
# a collection that has run past a ring's worth of records.
if ! modprobe ksnap metrics=$METRICS cgroups=/ksnapabuse period_us=1000 ring_kb=64; then
	fail "module loads" "modprobe status 0" "failure"
	finish
	exit
fi
pass "module loads with metrics=$METRICS cgroups=/ksnapabuse"

# --- 1. garbage tails ------------------------------------------------------------

check "tail: start" ok "$(enable 1)"
for mode in behind ahead ones; do
	head0=$(guestprobe ctrl | sed -n 's/^head //p')
	nrec=$(guestprobe ctrl | sed -n 's/^nr_records //p')
	# The bad tail is held until 100 snapshots were taken (not for a
	# time: how many a time brings depends on the host).
	out=$(guestprobe set-tail $mode 100)
	d=$(printf '%s\n' "$out" | sed -n 2p)
	info "tail $mode: head about $head0 of $nrec records; increases while it was held: $d"
	set -- $d
	# taken T lost L bad_tail B
	# All ones is above head: modulo 2^64 it would pass for "head + 1
	# records unread", but positions never wrap (ksnap_abi.h), so the
	# kernel must count it like the others.
	if [ "${2:-0}" -gt 0 ] && [ "${6:-0}" -gt 0 ]; then
		pass "tail $mode: the kernel counts bad_tail ($6) and goes on sampling ($2 taken)"
	else
		fail "tail $mode: bad_tail counted while sampling" "taken > 0, bad_tail > 0" "'$d'"
	fi
	diff=$(( ${4:-0} - ${6:-0} ))
	if [ "$diff" -ge -1 ] && [ "$diff" -le 1 ]; then
		pass "tail $mode: every snapshot with a bad tail is counted lost (lost $4, bad_tail $6)"
	else
		fail "tail $mode: snapshots with a bad tail counted lost" "lost == bad_tail (+-1)" "lost $4, bad_tail $6"
	fi
	check "tail $mode: still running" running "$(ksnap_stat state)"
done
check "tail: stop" ok "$(enable 0)"
h=$(guestprobe ctrl)
info "tail: control page after the stop: $(printf '%s' "$h" | tr '\n' ' ')"
taken=$(printf '%s\n' "$h" | sed -n 's/^taken //p')
lost=$(printf '%s\n' "$h" | sed -n 's/^lost //p')
head=$(printf '%s\n' "$h" | sed -n 's/^head //p')
start=$(printf '%s\n' "$h" | sed -n 's/^start_position //p')
check "tail: taken == records written (head - start_position) + lost" "$taken" "$((head - start + lost))"
# Everything still works: a normal collection.
ksnapd --once -o /out/after-tail.tsv 2> /out/after-tail.err &
kpid=$!
wait_attached
check "tail: start after the garbage" ok "$(enable 1)"
wait_rows /out/after-tail.tsv 10
check "tail: stop after the garbage" ok "$(enable 0)"
wait_pid $kpid $WAIT_S
check_st "tail: ksnapd writes a collection afterwards" 0 $? /out/after-tail.err
ksnap-verify /out/after-tail.tsv > /out/after-tail.verify 2>&1
check_st "tail: ksnap-verify says it is intact" 0 $? /out/after-tail.verify
check "tail: no bad tail in the new collection" 0 "$(sys_stat bad_tail)"

# --- 2. mremap --------------------------------------------------------------------

for region in ctrl consumer data; do
	check_in "mremap: growing the $region mapping fails" "$(guestprobe mremap $region)" EFAULT EINVAL ENOMEM
done

# --- 3. misaligned and cross-region mappings -----------------------------------------

set -- $(guestprobe layout)
ctrl_pages=$1 cons=$2 data=$3 data_pages=$4 total=$5 page=$6
info "layout: ctrl_pages $ctrl_pages consumer $cons data $data data_pages $data_pages total $total page $page"
check "misaligned: a byte offset inside a page is EINVAL" EINVAL "$(guestprobe map-bytes $((page / 2)) $page)"
if [ "$ctrl_pages" -gt 1 ]; then
	check "misaligned: a mapping from inside the control region is EINVAL" EINVAL "$(guestprobe map 1 1 ro)"
fi
check "misaligned: a mapping from inside the record region is EINVAL" EINVAL "$(guestprobe map $((data + 1)) 1 ro)"
check "misaligned: the last record page alone is EINVAL" EINVAL "$(guestprobe map $((total - 1)) 1 ro)"
check "misaligned: the whole device plus one page is EINVAL" EINVAL "$(guestprobe map 0 $((total + 1)) ro)"
check "misaligned: consumer and record pages writable together is EPERM" EPERM "$(guestprobe map $cons 2 rw)"
check "misaligned: a private writable consumer mapping is EINVAL" EINVAL "$(guestprobe map $cons 1 private)"
check "misaligned: a huge page offset is EINVAL" EINVAL "$(guestprobe map 4294967295 1 ro)"
check "misaligned: the whole device read-only still maps" ok "$(guestprobe map 0 $total ro)"

# --- 4. unprivileged users ------------------------------------------------------------

check "unprivileged: opening /dev/ksnap as uid 65534 is EACCES" EACCES "$(guestprobe as 65534 guestprobe open)"
for k in enable metrics cgroups period_us wake_ms overflow; do
	check_in "unprivileged: writing $k as uid 65534 is refused" "$(guestprobe as 65534 guestprobe write $KSNAP_SYS/$k 1)" EACCES EPERM
done
check "unprivileged: enable still reads 0" 0 "$(cat $KSNAP_SYS/enable)"
guestprobe as 65534 ksnapd --no-wait --once -o /tmp/unpriv.tsv > /out/unpriv.out 2> /out/unpriv.err
check_st "unprivileged: ksnapd as uid 65534 exits 1" 1 $? /out/unpriv.err
check_lines "unprivileged: ksnapd says to run as root" 1 "run as root" "$(cat /out/unpriv.err)"
guestprobe as 65534 cat $KSNAP_SYS/stats/* $KSNAP_SYS/plan/* > /dev/null 2>&1
check "unprivileged: stats stay readable" 0 $?

# --- 5. every knob fed garbage ----------------------------------------------------------

# state: every knob and the stats that say whether anything happened, in
# $STATE (read with the shell's own read: no process per file, which on
# a debug kernel is most of this test's time).
state() {
	STATE=""
	for k in enable metrics cgroups period_us wake_ms overflow; do
		_v="(unreadable)"
		read -r _v < $KSNAP_SYS/$k 2> /dev/null
		STATE="$STATE$k=$_v;"
	done
	for _n in generation state taken; do
		_v="(unreadable)"
		read -r _v < $KSNAP_SYS/stats/$_n 2> /dev/null
		STATE="$STATE$_n $_v;"
	done
}
state
case "$STATE" in
*"enable=0;"*"state stopped;"*) pass "knobs: the state compared before and after reads the knobs and stats ($STATE)" ;;
*) fail "knobs: the state compared before and after reads the knobs and stats" "enable=0 ... state stopped" "$STATE" ;;
esac

LONG_DIGITS=$(printf '%04000d' 1)
# garbage KNOB WHAT HOW ARG: HOW is write (ARG + newline), hex or n (5000 x ARG)
garbage() {
	knob=$1 what=$2 how=$3 arg=$4
	state
	before=$STATE
	klog_mark
	case $how in
	write) e=$(guestprobe write $KSNAP_SYS/$knob "$arg") ;;
	hex) e=$(guestprobe write-hex $KSNAP_SYS/$knob "$arg") ;;
	n) e=$(guestprobe write-n $KSNAP_SYS/$knob "$arg" 5000) ;;
	esac
	state
	after=$STATE
	case "$what" in
	"a zero-length write")
		# write(2) of 0 bytes to a sysfs file returns 0 without calling
		# the store (sysfs_kf_write), so there is nothing to refuse:
		# the write "succeeds" with 0 bytes, logs nothing, changes
		# nothing.
		check "knobs: $knob: $what returns 0 and never reaches the store" ok "$e"
		check_lines "knobs: $knob: $what logs nothing" 0 "ksnap:" "$(klog_since)"
		;;
	"5000 characters") check_in "knobs: $knob: $what is refused" "$e" E2BIG EINVAL ;;
	*) check_in "knobs: $knob: $what is refused" "$e" EINVAL ERANGE ENOENT ENAMETOOLONG ;;
	esac
	check "knobs: $knob: nothing changed after $what" "$before" "$after"
	# A garbage write that started sampling: stop, for the next one.
	_en=
	read -r _en < $KSNAP_SYS/enable
	[ "$_en" = 1 ] && enable 0 > /dev/null
}

for knob in enable period_us wake_ms overflow metrics cgroups; do
	garbage $knob "a zero-length write" hex ""
	if [ $knob = enable ] || [ $knob = period_us ] || [ $knob = wake_ms ] ||
		[ $knob = overflow ]; then
		garbage $knob "an empty line" write ""
		garbage $knob "whitespace" write "   "
		garbage $knob "a tab" hex "09"
	fi
	# Text only: a NUL would hide what follows it (sysfs.c), so even
	# where empty means something (metrics, cgroups) it is refused.
	garbage $knob "a NUL byte" hex "00"
	garbage $knob "a negative number" write "-1"
	garbage $knob "a huge number" write "99999999999999999999"
	garbage $knob "2^64 (overflows u64)" write "18446744073709551616"
	garbage $knob "non-ASCII bytes" hex "c3a9fffe80"
	garbage $knob "4000 digits" write "$LONG_DIGITS"
	garbage $knob "5000 characters" n "a"
done
garbage enable "several values (1 0)" write "1 0"
garbage enable "several values (0 1)" write "0 1"
garbage enable "a word starting like a boolean (yesterday)" write "yesterday"
garbage enable "a number (2)" write "2"
garbage enable "a NUL inside (1 NUL junk)" hex "31006a756e6b"
garbage period_us "a NUL inside (500 NUL junk)" hex "353030006a756e6b"
garbage overflow "a NUL inside (drop NUL junk)" hex "64726f70006a756e6b"
garbage metrics "a NUL inside (pgfault NUL junk)" hex "70676661756c74006a756e6b"
garbage cgroups "a NUL inside (/ NUL junk)" hex "2f006a756e6b"
garbage overflow "several values" write "drop overwrite"
garbage overflow "a prefix" write "over"
garbage overflow "upper case" write "DROP"
garbage period_us "several values" write "500 600"
garbage period_us "a number and junk" write "500abc"
garbage period_us "a hex number" write "0x1f4"
garbage wake_ms "zero" write "0"
garbage wake_ms "above the range (10001)" write "10001"
garbage wake_ms "a leading zero" write "0100"
garbage wake_ms "a number and junk" write "100ms"
garbage metrics "several values separated by spaces" write "pgfault pgmajfault"
garbage metrics "an empty element" write "pgfault,,pgmajfault"
garbage metrics "a trailing comma" write "pgfault,"
garbage cgroups "several values separated by spaces" write "/ksnapabuse /ksnapabuse"
garbage cgroups "a relative path" write "ksnapabuse"
garbage cgroups "dot-dot" write "/ksnapabuse/../.."
check "knobs: still stopped at the end" stopped "$(ksnap_stat state)"

# Empty values of metrics and cgroups are not garbage: documented (parse.h,
# config.c) as the default metric list and no cgroup.  An empty line,
# blanks and a tab all mean empty (a NUL byte is refused, above).  The
# default list is pgfault,pgmajfault,nr_free_pages, plus memory.current
# when cgroups are set (docs/interface.md).  An empty cgroups while metrics names a
# per-cgroup metric leaves that metric without a cgroup: refused, and
# nothing changes.
DEFAULT=pgfault,pgmajfault,nr_free_pages
# empty_write KNOB HOW VALUE: guestprobe's answer for that empty value.
empty_write() {
	case $2 in
	write) guestprobe write $KSNAP_SYS/$1 "$3" ;;
	hex) guestprobe write-hex $KSNAP_SYS/$1 "$3" ;;
	esac
}
for how_v in "write:" "write:   " "write:$(printf '\t')"; do
	how=${how_v%%:*} v=${how_v#*:}
	case $how_v in
	"write:") name="an empty line" ;;
	"write:   ") name="blanks" ;;
	*) name="a tab" ;;
	esac
	# metrics: the default list, with memory.current for the cgroup.
	guestprobe write $KSNAP_SYS/cgroups /ksnapabuse > /dev/null
	check "empty: set-up for $name: metrics pgfault,memory.current" ok "$(guestprobe write $KSNAP_SYS/metrics pgfault,memory.current)"
	check "empty: metrics $name (the default list) is accepted" ok "$(empty_write metrics $how "$v")"
	check "empty: metrics reads the default list, with memory.current for the cgroup, after $name" \
		"$DEFAULT,memory.current" "$(cat $KSNAP_SYS/metrics)"
	check "empty: cgroups unchanged after metrics $name" /ksnapabuse "$(cat $KSNAP_SYS/cgroups)"
	# cgroups with the default list: none, and the default drops
	# memory.current.
	check "empty: cgroups $name (none) is accepted with the default metrics" ok "$(empty_write cgroups $how "$v")"
	check "empty: cgroups reads empty after $name" "" "$(cat $KSNAP_SYS/cgroups)"
	check "empty: the default list without a cgroup has no memory.current (after $name)" "$DEFAULT" "$(cat $KSNAP_SYS/metrics)"
	# cgroups while memory.current is named: refused, nothing changes.
	guestprobe write $KSNAP_SYS/cgroups /ksnapabuse > /dev/null
	check "empty: set-up for $name: metrics pgfault,memory.current again" ok "$(guestprobe write $KSNAP_SYS/metrics pgfault,memory.current)"
	state
	before=$STATE
	check "empty: cgroups $name while metrics names memory.current is EINVAL" EINVAL "$(empty_write cgroups $how "$v")"
	state
	check "empty: nothing changed after the refused cgroups $name" "$before" "$STATE"
	# cgroups with only system-wide metrics: none.
	check "empty: set-up for $name: metrics pgfault" ok "$(guestprobe write $KSNAP_SYS/metrics pgfault)"
	check "empty: cgroups $name (none) is accepted with system-wide metrics" ok "$(empty_write cgroups $how "$v")"
	check "empty: cgroups reads empty, metrics still pgfault, after $name" ";pgfault" "$(cat $KSNAP_SYS/cgroups);$(cat $KSNAP_SYS/metrics)"
done

# --- 6. garbage module parameters -----------------------------------------------------

rmmod ksnap
for p in "period_us=-1" "period_us=18446744073709551616" "period_us=1000abc" \
	"period_us=" "ring_kb=-64" "ring_kb=99999999999999999999" \
	"metrics=$(printf '\303\251\377')" "metrics=$(printf '%05000d' 0)" \
	"metrics=pgfault,nosuch" "cgroups=/ksnapabuse/../.." \
	"overflow=" "overflow=lap" "overflow=drop,overwrite" \
	"wake_ms=0" "wake_ms=10001" "wake_ms=-1"; do
	e=$(guestprobe load "$KO" "$p")
	short=$(printf '%s' "$p" | cut -c1-40)
	if [ "$e" != ok ]; then
		pass "params: '$short' is refused ($e)"
	else
		fail "params: '$short' is refused" "an error" "ok"
	fi
	if module_loaded; then
		fail "params: nothing loaded after '$short'" "not loaded" "loaded"
		rmmod ksnap
	else
		pass "params: nothing loaded after '$short'"
	fi
done
rmdir $CG/ksnapabuse
finish
