# SPDX-License-Identifier: MIT
# Shared helpers of the guest halves of the integration tests.  Sourced by
# tests/guest/*.sh inside a guest booted by scripts/guest (they live in
# /guest/tests/ there).  Each check prints one line,
#   ok - <test>: <behaviour>
#   not ok - <test>: <behaviour>: expected <x>, got <y>
# on stdout and appends it to /out/results.txt, which tests/run-guest-tests
# counts on the host.  Lines starting with '#' are information.

: "${TEST:=guest}"
RESULTS=/out/results.txt
# The module's files: the attributes of its misc device (/sys/kernel/ksnap
# is a deprecated link to the same directory).
KSNAP_SYS=/sys/class/misc/ksnap
KO=/lib/modules/$(uname -r)/extra/ksnap.ko
CG=/sys/fs/cgroup
nfail=0

# The bound on a snapshot's read (read_pct, read_cap_us) is for real CPUs.
# Under TCG on a busy host a read takes 10 to 100 times longer, and at the
# defaults a test's start could be refused, or its collection stopped, for
# the host's load alone.  So every modprobe here raises it to the period
# (/etc/modprobe.d, which kmod's modprobe and ksnapd --load read), except
# in the test of the bound itself, which loads with the defaults.
mkdir -p /etc/modprobe.d
if [ "$TEST" = costbound ]; then
	rm -f /etc/modprobe.d/ksnap-tests.conf
else
	echo "options ksnap read_pct=100 read_cap_us=1000000" > /etc/modprobe.d/ksnap-tests.conf
fi

# Each result line to the output and to $RESULTS with the shell's own
# printf: a process per check is most of some tests' time on a debug
# kernel.
pass() {
	printf '%s\n' "ok - $TEST: $1"
	printf '%s\n' "ok - $TEST: $1" >> "$RESULTS"
}

# fail BEHAVIOUR EXPECTED GOT
fail() {
	printf '%s\n' "not ok - $TEST: $1: expected $2, got $3"
	printf '%s\n' "not ok - $TEST: $1: expected $2, got $3" >> "$RESULTS"
	nfail=$((nfail + 1))
}

info() {
	echo "# $*"
}

# check BEHAVIOUR EXPECTED GOT: string equality.
check() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "'$2'" "'$3'"; fi
}

# check_in BEHAVIOUR GOT ALLOWED...: GOT is one of ALLOWED.
# (The helpers' variables start with _: sh has no locals, and a caller's
# $what or $got must survive a check.)
check_in() {
	_what=$1 _got=$2
	shift 2
	for _a in "$@"; do
		[ "$_got" = "$_a" ] && { pass "$_what ($_got)"; return 0; }
	done
	fail "$_what" "one of: $*" "'$_got'"
}

# ge NAME A B: the check that number A >= number B
ge() {
	if [ "${2:-x}" -ge "${3:-0}" ] 2>/dev/null; then
		pass "$1 ($2 >= $3)"
	else
		fail "$1" ">= $3" "'$2'"
	fi
}

# show TEXT: TEXT's lines (at most 20) as information lines under a check.
show() {
	printf '%s\n' "$1" | head -n 20 | sed 's/^/#   /'
}

# check_lines BEHAVIOUR N STRING TEXT: TEXT has N lines (">0": at least
# one) containing STRING (a fixed string).  A failure names STRING and
# shows the lines that matched, or, with none, the last lines searched.
check_lines() {
	_what=$1 _want=$2 _str=$3 _text=$4
	_got=$(printf '%s\n' "$_text" | grep -c -F -e "$_str")
	case $_want in
	">0") [ "$_got" -gt 0 ] ;;
	*) [ "$_got" -eq "$_want" ] ;;
	esac && { pass "$_what"; return 0; }
	fail "$_what" "$_want line(s) containing '$_str'" "$_got"
	if [ "$_got" -gt 0 ]; then
		info "the lines containing '$_str':"
		show "$(printf '%s\n' "$_text" | grep -F -e "$_str")"
	else
		info "no line contains '$_str'; the last lines searched:"
		show "$(printf '%s\n' "$_text" | tail -n 10)"
	fi
	return 1
}

# check_st BEHAVIOUR WANT GOT FILE...: check; on failure the last lines of
# each FILE (what the command said) follow.
check_st() {
	_what=$1 _want=$2 _got=$3
	shift 3
	if [ "$_want" = "$_got" ]; then pass "$_what"; return 0; fi
	fail "$_what" "status $_want" "status $_got"
	for _f in "$@"; do
		info "the last lines of $_f:"
		show "$(tail -n 10 "$_f" 2>&1)"
	done
	return 1
}

module_loaded() {
	grep -q '^ksnap ' /proc/modules
}

# Put a unique line in the kernel log; klog_since prints what came after it.
mark_n=0
klog_mark() {
	mark_n=$((mark_n + 1))
	mark="ksnap-test-mark-$$-$mark_n"
	echo "$mark" > /dev/kmsg
}
klog_since() {
	dmesg | awk -v m="$mark" 'seen { print } index($0, m) { seen = 1 }'
}

# Unload ksnap if a check left it loaded, so the next check starts clean.
# A reader still closing /dev/ksnap holds the module for a moment (rmmod:
# in use): that is waited for.  A module left loaded would make the next
# modprobe a no-op, and the next test run with this one's parameters.
unload() {
	module_loaded || return 0
	wait_for "ksnap unloads" $WAIT_S unloaded
}

# unloaded: stop the collection, rmmod; true once ksnap is not loaded.
unloaded() {
	module_loaded || return 0
	[ -w "$KSNAP_SYS/enable" ] && echo 0 > "$KSNAP_SYS/enable" 2>/dev/null
	rmmod ksnap 2>&1
	! module_loaded
}

# alive PID: the process exists and has not exited (a zombie child still
# answers kill -0).
alive() {
	case $(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' /proc/"$1"/status 2>/dev/null) in
	Z|'') return 1 ;;
	esac
	return 0
}

# --- Waiting ------------------------------------------------------------------
# The guests are emulated (TCG) on a shared host: how long anything takes
# says nothing.  A test never sleeps for a fixed time and then assumes that
# something has happened; it waits for the thing itself, here.  The
# deadlines only keep a broken run from hanging: they are far above what
# any run needs.  A fixed sleep is left only where time must pass by
# definition (a span in which something must NOT happen, a workload's own
# pace), commented where it is.
WAIT_S=60

# kernel_version: the running kernel's major.minor ("5.10", "6.1", "7.3";
# an -rt kernel is its base's).
kernel_version() {
	uname -r | cut -d. -f1,2
}

# kernel_since MAJOR.MINOR: the running kernel is that version or later.
kernel_since() {
	_ksv=$(kernel_version)
	[ "${_ksv%%.*}" -gt "${1%%.*}" ] ||
		{ [ "${_ksv%%.*}" -eq "${1%%.*}" ] && [ "${_ksv#*.}" -ge "${1#*.}" ]; }
}

# debug_kernel: the guest runs a debug kernel (debug, debug-6.12-rt:
# KASAN, lockdep, kmemleak; scripts/guest names the kernel in
# /guest/kernel).  Under TCG its every step is many times slower than a
# release kernel's, and beside a busy host a reader can fall a ring behind
# a collection of 2 or 10 ms: there a test that reads a whole collection
# checks that every snapshot is counted (check_sets_counted), not that
# none is lost.
debug_kernel() {
	_dk=
	{ read -r _dk < /guest/kernel; } 2>/dev/null
	case $_dk in
	debug*) return 0 ;;
	esac
	return 1
}

# uptime_s: whole seconds since boot (no process started).
uptime_s() {
	read -r _up _rest < /proc/uptime
	echo "${_up%.*}"
}

# wait_for [--quiet] WHAT SECONDS COMMAND...: run COMMAND every 50 ms until
# it succeeds; 0 then.  After SECONDS (by the guest's clock) it fails with
# "not ok - TEST: wait: WHAT: expected ..., got ..." naming what COMMAND
# printed last (COMMAND prints what it sees), and returns 1.  --quiet:
# no failure line, the caller's own check reports it.  What COMMAND
# printed last is in $seen either way.  Not in $(...): the failure would
# be counted in a subshell.
wait_for() {
	_w_quiet=0
	[ "$1" = --quiet ] && { _w_quiet=1; shift; }
	_w_what=$1 _w_secs=$2
	shift 2
	_w_end=$(( $(uptime_s) + _w_secs ))
	while :; do
		if seen=$("$@" 2>&1); then
			return 0
		fi
		if [ "$(uptime_s)" -ge $_w_end ]; then
			[ $_w_quiet = 1 ] ||
				fail "wait: $_w_what" "it within $_w_secs s" "after $_w_secs s, last seen: '$(printf '%s' "${seen:-(nothing)}" | tail -n 3 | tr '\n' '|')'"
			return 1
		fi
		usleep 50000
	done
}

# check_wait WHAT SECONDS COMMAND...: a check that something comes to
# hold: ok once COMMAND succeeds, not ok (what it printed last) if it has
# not after SECONDS.
check_wait() {
	_cw_what=$1
	shift
	wait_for "$_cw_what" "$@" && pass "$_cw_what"
}

# Conditions for wait_for.  Each prints what it saw; its status says
# whether the condition holds.

# ksnap_value DIR KEY: the file stats/KEY or plan/KEY, read with the
# shell's own read (no process); empty if there is none.
ksnap_value() {
	_kv=
	{ read -r _kv < "$KSNAP_SYS/$1/$2"; } 2>/dev/null
	echo "$_kv"
}

# ksnap_stat KEY: the module's stats/KEY (taken, lost, state, reader...).
ksnap_stat() {
	ksnap_value stats "$1"
}

# ksnap_plan KEY: the module's plan/KEY (columns, single, live_cpus...).
ksnap_plan() {
	ksnap_value plan "$1"
}

# ksnap_dump stats|plan: "KEY VALUE" for each file of the directory.
ksnap_dump() {
	for _kd in "$KSNAP_SYS/$1"/*; do
		echo "${_kd##*/} $(ksnap_value "$1" "${_kd##*/}")"
	done
}

# ring_columns: the current set's columns as metric[cgroup] (the global
# ones as metric), in order, blank-separated (KSNAP_IOC_COLUMN: no reader
# needed).
ring_columns() {
	_i=0
	_out=
	while _c=$(guestprobe column cur $_i 2>/dev/null); do
		_m=$(echo "$_c" | sed -n 3p)
		_v=$(echo "$_c" | sed -n 5p)
		_out="$_out ${_m}${_v:+[$_v]}"
		_i=$((_i + 1))
	done
	echo "${_out# }"
}

# ring_cgroups METRIC: the cgroups of the current set's METRIC columns, in
# order, blank-separated.
ring_cgroups() {
	ring_columns | tr ' ' '\n' | sed -n "s/^$1\[\(.*\)\]\$/\1/p" |
		tr '\n' ' ' | sed 's/ $//'
}

# ring_cgroups_are LIST: the current set's cpu.stat.usage columns name
# exactly LIST (asked of the module: no reader open).
ring_cgroups_are() {
	_rc=$(ring_cgroups cpu.stat.usage)
	echo "the current set's cgroups: '$_rc'"
	[ "$_rc" = "$1" ]
}

# stat_is KEY VALUE: stats/KEY reads VALUE.
stat_is() {
	_v=$(ksnap_stat "$1")
	echo "$1 ${_v:-none} (want $2)"
	[ "$_v" = "$2" ]
}

# stat_above KEY N: stats/KEY reads more than N.
stat_above() {
	_v=$(ksnap_stat "$1")
	echo "$1 ${_v:-none} (want more than $2)"
	[ "${_v:-0}" -gt "$2" ]
}

# --- Admission ----------------------------------------------------------------
# A start of a collection with cgroup patterns admits the cgroups its read's
# bound leaves room for, at the price of one cgroup's read beyond the start
# set's (stats/columns_admitted, cgroup_price_ns); later matches past them
# are skipped and counted (stats/cgroups_skipped).  With the tests' bound
# (the period, above) that is practically every match; admit_start makes
# it a few, whatever the machine's speed.

# admit_start G K MIN MAX: start the loaded collection so that it admits
# MIN to MAX cgroups in all, of K columns each beside G columns not per
# cgroup (stats/columns_admitted = G + K x cgroups); sets $admitted to
# the count.  The patterns must match the start set (at least one cgroup,
# fewer than MIN), and no reader may be open: a start that admits too few
# or too many is stopped and tried again.  The first start, at the bound
# the period, measures the read's estimate and a cgroup's price; the next
# has read_cap_us = the estimate and what the middle of the range costs
# beyond the start set at that price (and so on, from each start's own
# figures: they vary from start to start).  Once a start admits a count in
# the range, the bound goes back to the period (read_cap_us=1000000): the
# timer, whose reads are far within it, sheds nothing, and the set's room
# stays what the start admitted.  Not ok, status 1, after 8 starts.
admit_start() {
	_as_g=$1 _as_k=$2 _as_min=$3 _as_max=$4
	_as_cap=1000000 _as_try=0 _as_why=
	admitted=
	while [ $_as_try -lt 8 ]; do
		_as_try=$((_as_try + 1))
		guestprobe write /sys/module/ksnap/parameters/read_cap_us $_as_cap > /dev/null
		_as_r=$(guestprobe write $KSNAP_SYS/enable 1)
		if [ "$_as_r" != ok ]; then
			# Refused: the estimate came above the bound.
			_as_why="read_cap_us=$_as_cap: start $_as_r"
			info "admit_start: try $_as_try: $_as_why"
			[ $_as_cap -lt 1000000 ] || break
			_as_cap=$((_as_cap + _as_cap / 4 + 1))
			[ $_as_cap -le 1000000 ] || _as_cap=1000000
			continue
		fi
		_as_e=$(ksnap_stat read_estimate_ns)
		_as_p=$(ksnap_stat cgroup_price_ns)
		_as_c=$(ksnap_stat columns_admitted)
		_as_a=$(( (${_as_c:-0} - _as_g) / _as_k ))
		_as_s=$(( ($(ksnap_plan columns) - _as_g) / _as_k ))
		_as_why="read_cap_us=$_as_cap: estimate ${_as_e:-none} ns, a cgroup ${_as_p:-none} ns: $_as_c columns, $_as_a cgroups admitted ($_as_s at the start)"
		info "admit_start: try $_as_try: $_as_why"
		if [ $_as_a -ge $_as_min ] && [ $_as_a -le $_as_max ]; then
			guestprobe write /sys/module/ksnap/parameters/read_cap_us 1000000 > /dev/null
			admitted=$_as_a
			return 0
		fi
		guestprobe write $KSNAP_SYS/enable 0 > /dev/null
		_as_cap=$(( (${_as_e:-0} + ((_as_min + _as_max) / 2 - _as_s) * ${_as_p:-0} + ${_as_p:-0} / 2) / 1000 ))
		[ $_as_cap -ge 1 ] || _as_cap=1
		[ $_as_cap -le 1000000 ] || _as_cap=1000000
	done
	guestprobe write /sys/module/ksnap/parameters/read_cap_us 1000000 > /dev/null
	fail "a start that admits $_as_min to $_as_max cgroups" "one within 8 starts" "$_as_why"
	return 1
}

# reader_is none|open|attached: stats/reader says so.
reader_is() {
	_r=$(ksnap_stat reader)
	echo "reader $_r"
	[ "$_r" = "$1" ]
}

# taken_at_least N: the collection has taken N snapshots or more.
taken_at_least() {
	_t=$(ksnap_stat taken)
	echo "taken ${_t:-none} (want >= $1)"
	[ "${_t:-0}" -ge "$1" ]
}

# lost_at_least N: N or more snapshots were lost (ring full).
lost_at_least() {
	_l=$(ksnap_stat lost)
	echo "lost ${_l:-none} (want >= $1)"
	[ "${_l:-0}" -ge "$1" ]
}

# ksnap_written: taken - lost, the records the module wrote.  taken is
# read first: a snapshot lost between the two reads makes the figure
# smaller, never larger than what was written.
ksnap_written() {
	_t=$(ksnap_stat taken)
	_l=$(ksnap_stat lost)
	echo $((${_t:-0} - ${_l:-0}))
}

# written_at_least N: the module wrote N records or more.
written_at_least() {
	_w=$(ksnap_written)
	echo "taken - lost = ${_w:-none} (want >= $1)"
	[ "${_w:-0}" -ge "$1" ]
}

# rows FILE: data lines of a stream, plain or lossy.
rows() {
	grep -c "^\(GVISOR_METRICS	\)\{0,1\}[0-9]" "$1" 2>/dev/null
}

# check_sets_counted FILE: a collection that guestprobe sets read whole
# into FILE (stopped, the reader ended) lost nothing uncounted: the
# counted loss identity of docs/format.md ("Sequences") for one reader,
# where a row is a record of a set the reader named:
#   stats/taken = rows + stats/lost (the ring full)
#                 + skipped (the records of a set the reader met after the
#                   module had let it go, ESTALE: a reader of values skips
#                   and counts them, as ksnapd does)
#                 + overwritten (positions the reader jumped over)
# skipped and overwritten are the reader's own counts (its "end" line),
# and a set it did not name is allowed only with all its records counted
# as skipped.  For a debug kernel (debug_kernel); elsewhere the tests ask
# for no loss at all.
check_sets_counted() {
	_sc_f=$1
	read -r _sc_rows _sc_unnamed _sc_sets _sc_sk _sc_ow <<EOF
$(awk '
	/^set / { named = ($0 ~ " cgroups( /[^ ]*)*$"); if (!named) sets++; next }
	/^[0-9]/ { if (named) rows++; else unnamed++; next }
	/^end / { sk = $4; ow = $6; ended = 1 }
	END { print rows + 0, unnamed + 0, sets + 0, (ended ? sk : "none"), (ended ? ow : "none") }' "$_sc_f")
EOF
	case "$_sc_sk.$_sc_ow" in
	*[!0-9.]*|.*|*.)
		fail "the reader ends with its counts (${_sc_f##*/})" \
			"a last line 'end N skipped K overwritten O'" "'$(tail -n 1 "$_sc_f")'"
		return 1 ;;
	esac
	_sc_taken=$(ksnap_stat taken)
	_sc_lost=$(ksnap_stat lost)
	info "${_sc_f##*/}: taken ${_sc_taken:-none}: $_sc_rows rows, ${_sc_lost:-none} lost (ring full), $_sc_sk skipped ($_sc_sets sets not named), $_sc_ow overwritten"
	check "the reader named every set's columns when it met the set, or counted each record of a set it did not name as skipped (debug kernel: $_sc_sets not named)" \
		"$_sc_unnamed" "$_sc_sk"
	check "every snapshot taken is a row or counted (debug kernel: taken = rows + lost + skipped + overwritten)" \
		"$_sc_taken" "$((_sc_rows + ${_sc_lost:-0} + _sc_sk + _sc_ow))"
}

# rows_at_least FILE N: FILE has N rows or more.
rows_at_least() {
	_n=$(rows "$1")
	echo "${_n:-0} rows in $1 (want >= $2)"
	[ "${_n:-0}" -ge "$2" ]
}

# has_line FILE STRING: FILE has a line containing STRING (fixed).
has_line() {
	if grep -F -e "$2" "$1" 2>/dev/null; then return 0; fi
	echo "no line with '$2' in $1; its last lines:"
	tail -n 3 "$1" 2>&1
	return 1
}

# exited PID: the process has exited (or is a zombie).
exited() {
	if alive "$1"; then echo "process $1 still there"; return 1; fi
	echo "process $1 exited"
}

# proc_state PID STATES: the process's state letter is one of STATES
# (e.g. S, T, SD).
proc_state() {
	_s=$(sed -n 's/^State:[[:space:]]*//p' /proc/"$1"/status 2>/dev/null)
	echo "state ${_s:-(no process)}"
	case ${_s%% *} in
	'') return 1 ;;
	["$2"]) return 0 ;;
	esac
	return 1
}

# asleep_in_poll PID: the process sleeps (S) inside poll(2) or ppoll(2)
# (/proc/PID/syscall: x86-64 numbers 7 and 271; arm64 has ppoll only, 73).
asleep_in_poll() {
	_s=$(sed -n 's/^State:[[:space:]]*//p' /proc/"$1"/status 2>/dev/null)
	read -r _nr _rest 2>/dev/null < /proc/"$1"/syscall
	echo "state ${_s:-(no process)}, syscall ${_nr:-?}"
	case "$(uname -m) ${_s%% *} $_nr" in
	"x86_64 S 7"|"x86_64 S 271"|"aarch64 S 73") return 0 ;;
	esac
	return 1
}

# wait_attached: a reader (ksnapd, guestprobe records) has opened the
# device and reported what it sees (KSNAP_IOC_SEEN); from then on it sees
# every start and stop.
wait_attached() {
	wait_for "the reader has the device open and has reported what it sees (stats: reader attached)" $WAIT_S reader_is attached
}

# dying: the root's nr_dying_descendants.
dying() {
	sed -n 's/^nr_dying_descendants //p' $CG/cgroup.stat
}

# dying_at_most N: nr_dying_descendants is N or less.
dying_at_most() {
	_d=$(dying)
	echo "nr_dying_descendants ${_d:-none} (want <= $1)"
	[ "${_d:-999999}" -le "$1" ]
}

# wait_samples N: the running collection takes N more snapshots.
wait_samples() {
	_ws_t0=$(ksnap_stat taken)
	wait_for "$1 more snapshots (taken $_ws_t0 -> $(( ${_ws_t0:-0} + $1 )))" $WAIT_S taken_at_least $(( ${_ws_t0:-0} + $1 ))
}

# wait_rows FILE N: a stream's file has N rows (its writer is at work).
wait_rows() {
	wait_for "$2 rows in $1" $WAIT_S rows_at_least "$1" "$2"
}

# wait_line FILE STRING: a log line containing STRING has appeared.
wait_line() {
	wait_for "a line with '$2' in $1" $WAIT_S has_line "$1" "$2"
}

# ctxt_switches PID: "VOLUNTARY NONVOLUNTARY", the context switches of
# PID's thread (/proc/PID/status).  A thread that sleeps counts one as it
# goes to sleep; one that is preempted counts one too.
ctxt_switches() {
	sed -n 's/^\(non\)\{0,1\}voluntary_ctxt_switches:[[:space:]]*//p' \
		/proc/"$1"/status 2>/dev/null | tr '\n' ' ' | sed 's/ $//'
}

# uptime_cs: centiseconds since boot (no process started).
uptime_cs() {
	read -r _up _rest < /proc/uptime
	_cs=${_up#*.}
	echo $(( ${_up%.*} * 100 + ${_cs#0} ))
}

# The longest ksnapd sleeps in one poll() while it waits with nothing to
# do: KSNAPD_POLL_MS (userspace/ksnapd/daemon.h), in centiseconds.
KSNAPD_POLL_CS=100

# stays_asleep_in_poll PID: PID is asleep in poll() at two looks 200 ms
# apart or more, and woke between them no more often than its poll
# timeout explains: a poll() that spins never sleeps (its thread is
# running or runnable, R); one that returns early wakes, and going back
# to sleep counts a voluntary switch (a wake-up may also count an
# involuntary one).  The span is measured, not assumed: on a slow guest
# the looks themselves take longer than the timeout, and each timeout
# that fits the span allows one wake-up.
stays_asleep_in_poll() {
	_sa_t1=$(uptime_cs)
	_sa_c1=$(ctxt_switches "$1")
	_sa_s1=$(asleep_in_poll "$1") || { echo "$_sa_s1"; return 1; }
	usleep 200000
	_sa_s2=$(asleep_in_poll "$1")
	_sa_ok=$?
	_sa_c2=$(ctxt_switches "$1")
	_sa_t2=$(uptime_cs)
	_sa_max=$(( (_sa_t2 - _sa_t1) / KSNAPD_POLL_CS + 1 ))
	echo "$_sa_s1, switches $_sa_c1; $(( (_sa_t2 - _sa_t1) * 10 )) ms later $_sa_s2, switches $_sa_c2 (at most $_sa_max wake-ups by the poll timeout)"
	[ $_sa_ok -eq 0 ] && [ -n "$_sa_c1" ] && [ -n "$_sa_c2" ] || return 1
	# shellcheck disable=SC2086
	set -- $_sa_c1 $_sa_c2
	[ $(($3 - $1)) -le $_sa_max ] && [ $(($4 - $2)) -le $_sa_max ]
}

# check_asleep WHAT PID: PID (a ksnapd) sleeps in poll() while it waits:
# it comes to be found asleep over a span of 200 ms or more, woken no
# more often than by its poll timeout (stays_asleep_in_poll).  A reader
# whose poll() spins never is, however long the check waits and whatever
# the machine's speed.
check_asleep() {
	check_wait "$1" $WAIT_S stays_asleep_in_poll "$2"
}

# wait_pid PID SECONDS: wait for a background child; its status, or 124
# (after killing it) when it takes longer than SECONDS.
wait_pid() {
	_pid=$1
	if ! wait_for --quiet "process $1 exits" "$2" exited "$_pid"; then
		kill -9 "$_pid" 2>/dev/null
		wait "$_pid" 2>/dev/null
		return 124
	fi
	wait "$_pid"
}

# Finish: the script's status says whether any check failed.
finish() {
	unload
	[ $nfail -eq 0 ]
}

# stream_last FILE NAME: the last row's value of column NAME of a stream.
stream_last() {
	awk -F'\t' -v k="$2" '$1 == "Time (ns)" { for (i = 2; i <= NF; i++) if ($i == k) c = i; next }
		c && $1 ~ /^[0-9]+$/ { v = $c } END { print v + 0 }' "$1"
}
# proc_runtime PID: its CPU time so far, ns (schedstat; else utime +
# stime in clock ticks of 10 ms).
proc_runtime() {
	if [ -r /proc/$1/schedstat ]; then
		read -r _rt _ < /proc/$1/schedstat
		echo "$_rt"
	else
		awk '{ print ($14 + $15) * 10000000 }' /proc/$1/stat
	fi
}
