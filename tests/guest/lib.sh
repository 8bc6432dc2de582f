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
check_in() {
	what=$1 got=$2
	shift 2
	for a in "$@"; do
		[ "$got" = "$a" ] && { pass "$what ($got)"; return 0; }
	done
	fail "$what" "one of: $*" "'$got'"
}

# show TEXT: TEXT's lines (at most 20) as information lines under a check.
show() {
	printf '%s\n' "$1" | head -n 20 | sed 's/^/#   /'
}

# check_lines BEHAVIOUR N STRING TEXT: TEXT has N lines (">0": at least
# one) containing STRING (a fixed string).  A failure names STRING and
# shows the lines that matched, or, with none, the last lines searched.
check_lines() {
	what=$1 want=$2 str=$3 text=$4
	got=$(printf '%s\n' "$text" | grep -c -F -e "$str")
	case $want in
	">0") [ "$got" -gt 0 ] ;;
	*) [ "$got" -eq "$want" ] ;;
	esac && { pass "$what"; return 0; }
	fail "$what" "$want line(s) containing '$str'" "$got"
	if [ "$got" -gt 0 ]; then
		info "the lines containing '$str':"
		show "$(printf '%s\n' "$text" | grep -F -e "$str")"
	else
		info "no line contains '$str'; the last lines searched:"
		show "$(printf '%s\n' "$text" | tail -n 10)"
	fi
	return 1
}

# check_st BEHAVIOUR WANT GOT FILE...: check; on failure the last lines of
# each FILE (what the command said) follow.
check_st() {
	what=$1 want=$2 got=$3
	shift 3
	if [ "$want" = "$got" ]; then pass "$what"; return 0; fi
	fail "$what" "status $want" "status $got"
	for f in "$@"; do
		info "the last lines of $f:"
		show "$(tail -n 10 "$f" 2>&1)"
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
	pid=$1 left=$(($2 * 10))
	while kill -0 "$pid" 2>/dev/null; do
		# A zombie child still answers kill -0: ask /proc.
		case $(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' /proc/"$pid"/status 2>/dev/null) in
		Z|'') break ;;
		esac
		if [ $left -le 0 ]; then
			kill -9 "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			return 124
		fi
		left=$((left - 1))
		usleep 100000
	done
	wait "$pid"
}

# Finish: the script's status says whether any check failed.
finish() {
	unload
	[ $nfail -eq 0 ]
}
