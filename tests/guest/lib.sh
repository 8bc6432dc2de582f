# Shared helpers of the guest halves of the integration tests.  Sourced by
# tests/guest/*.sh inside a guest booted by scripts/guest (they live in
# /guest/tests/ there).  Each check prints one line,
#   ok - <test>: <behaviour>
#   not ok - <test>: <behaviour>: expected <x>, got <y>
# on stdout and appends it to /out/results.txt, which tests/run-guest-tests
# counts on the host.  Lines starting with '#' are information.

: "${TEST:=guest}"
RESULTS=/out/results.txt
KSNAP_SYS=/sys/kernel/ksnap
KO=/lib/modules/$(uname -r)/extra/ksnap.ko
CG=/sys/fs/cgroup
nfail=0

pass() {
	echo "ok - $TEST: $1" | tee -a "$RESULTS"
}

# fail BEHAVIOUR EXPECTED GOT
fail() {
	echo "not ok - $TEST: $1: expected $2, got $3" | tee -a "$RESULTS"
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
unload() {
	if module_loaded; then
		[ -w "$KSNAP_SYS/enable" ] && echo 0 > "$KSNAP_SYS/enable" 2>/dev/null
		rmmod ksnap 2>/dev/null || info "rmmod ksnap failed"
	fi
}

# alive PID: the process exists and has not exited (a zombie child still
# answers kill -0).
alive() {
	case $(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' /proc/"$1"/status 2>/dev/null) in
	Z|'') return 1 ;;
	esac
	return 0
}

# wait_pid PID SECONDS: wait for a background child; its status, or 124
# (after killing it) when it takes longer than SECONDS.
wait_pid() {
	_pid=$1 _left=$(($2 * 10))
	while alive "$_pid"; do
		if [ $_left -le 0 ]; then
			kill -9 "$_pid" 2>/dev/null
			wait "$_pid" 2>/dev/null
			return 124
		fi
		_left=$((_left - 1))
		usleep 100000
	done
	wait "$_pid"
}

# Finish: the script's status says whether any check failed.
finish() {
	unload
	[ $nfail -eq 0 ]
}
