# SPDX-License-Identifier: MIT
# Guest half of the stress test: a seeded random stress of the whole
# interface for a bounded time (guestprobe stress SEED SECONDS: knob writes
# good and bad, device visits with garbage tails, ksnapd runs killed with
# random signals, SIGSTOP/SIGCONT, stats reads), then checks that the
# module is still sound.  The harness fails the run on any kernel splat.
#
# The seeds are fixed, so every run (and CI) walks the same steps; only
# timing differs.  Each knob write's result is checked against what is
# certain (guestprobe stress: a valid value is taken while stopped,
# period_us and overflow are EBUSY while running, metrics and cgroups
# EBUSY while running, garbage is EINVAL or ENOENT; EBUSY is allowed
# where a ksnapd might hold the device), and the first mismatches are
# printed with the step number.
#
#   sh /guest/tests/stress.sh [SEED:SECONDS]...    (default: 1:20 2:10)
#
# A failing seed is replayed, alone, by the command this script prints:
#   scripts/guest --kernel K -- 'sh /guest/tests/stress.sh SEED:SECONDS'
TEST=stress
. /guest/tests/lib.sh

enable() {
	guestprobe write $KSNAP_SYS/enable "$1"
}

mkdir -p $CG/ksnapstress
cd /tmp || exit 1

run_seed() { # SEED SECONDS
	seed=$1 secs=$2
	info "stress: seed $seed for $secs s; to replay it: scripts/guest --kernel $(cat /guest/kernel) -- 'sh /guest/tests/stress.sh $seed:$secs'"
	if ! modprobe ksnap metrics=pgfault,nr_free_pages period_us=500 ring_kb=64; then
		fail "stress $seed: module loads" "modprobe status 0" "failure"
		return
	fi
	start=$(date +%s)
	guestprobe stress "$seed" "$secs" > /out/stress-$seed.txt 2>&1
	st=$?
	el=$(( $(date +%s) - start ))
	info "stress $seed: $(tail -n 1 /out/stress-$seed.txt) ($el s)"
	if [ $st -eq 0 ]; then
		pass "stress $seed: every knob write answered as expected, no unexpected device error"
	else
		fail "stress $seed: every knob write answered as expected, no unexpected device error" \
			"status 0" "status $st; $(grep -c '^step ' /out/stress-$seed.txt) mismatches shown:"
		grep '^step ' /out/stress-$seed.txt | sed 's/^/#   /'
		info "whole output: /out/stress-$seed.txt (on the host: the guest's --out directory); replay: scripts/guest --kernel $(cat /guest/kernel) -- 'sh /guest/tests/stress.sh $seed:$secs'"
	fi
	# It ends by itself (the guest's timeout is the deadline): its
	# summary line is printed after its last ksnapd was reaped.
	steps=$(sed -n 's/^steps \([0-9]*\) .*/\1/p' /out/stress-$seed.txt)
	if [ "${steps:-0}" -gt 0 ]; then
		pass "stress $seed: ran to its end, its ksnapd reaped ($steps steps)"
	else
		fail "stress $seed: ran to its end, its ksnapd reaped" "a summary line with steps > 0" "'$(tail -n 1 /out/stress-$seed.txt)'"
	fi
	# No ksnapd left over; the module answers and is consistent.
	left=$(pidof ksnapd)
	check "stress $seed: no ksnapd left running" "" "$left"
	[ -n "$left" ] && ps | grep '[k]snapd' | sed 's/^/#   /'
	e=$(cat $KSNAP_SYS/enable)
	s=$(ksnap_stat state)
	check "stress $seed: enable and stats agree" "$e" "$([ "$s" = running ] && echo 1 || echo 0)"
	check "stress $seed: stop" ok "$(enable 0)"
	for k in metrics cgroups period_us overflow; do
		cat $KSNAP_SYS/$k > /dev/null
		check "stress $seed: $k still reads" 0 $?
	done
	# A clean configuration and one ordinary collection.
	guestprobe write $KSNAP_SYS/cgroups "" > /dev/null
	check "stress $seed: metrics can be set again" ok "$(guestprobe write $KSNAP_SYS/metrics pgfault,nr_free_pages)"
	check "stress $seed: period_us can be set again" ok "$(guestprobe write $KSNAP_SYS/period_us 1000)"
	check "stress $seed: overflow can be set again" ok "$(guestprobe write $KSNAP_SYS/overflow drop)"
	ksnapd --once -o /out/after-$seed.tsv 2> /out/after-$seed.err &
	kpid=$!
	wait_attached
	check "stress $seed: a collection starts afterwards" ok "$(enable 1)"
	wait_rows /out/after-$seed.tsv 10
	check "stress $seed: and stops" ok "$(enable 0)"
	wait_pid $kpid $WAIT_S
	check_st "stress $seed: ksnapd writes it out" 0 $? /out/after-$seed.err
	ksnap-verify /out/after-$seed.tsv > /out/after-$seed.verify 2>&1
	check_st "stress $seed: ksnap-verify says intact" 0 $? /out/after-$seed.verify
	rmmod ksnap
	check "stress $seed: rmmod afterwards" 0 $?
}

[ $# -gt 0 ] || set -- 1:20 2:10
for arg in "$@"; do
	case $arg in
	*:*:*|:*|*:|*[!0-9:]*) ;;
	*:*) run_seed "${arg%%:*}" "${arg#*:}"; continue ;;
	esac
	fail "stress: argument is SEED:SECONDS" "digits:digits" "'$arg'"
done
rmdir $CG/ksnapstress
finish
