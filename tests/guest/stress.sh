# Guest half of the stress test: a seeded, reproducible random stress of the
# whole interface for a bounded time (guestprobe stress SEED SECONDS: knob
# writes good and bad, device visits with garbage tails, ksnapd runs killed
# with random signals, SIGSTOP/SIGCONT, stats reads), then checks that the
# module is still sound.  The harness fails the run on any kernel splat.
# Two seeds: a fixed one (the same steps every run) and one from the clock,
# printed so that a failure can be replayed:
#   scripts/guest --kernel K -- 'mkdir /sys/fs/cgroup/ksnapstress; modprobe ksnap; guestprobe stress SEED 20'
TEST=stress
. /guest/tests/lib.sh

enable() {
	guestprobe write $KSNAP_SYS/enable "$1"
}

mkdir -p $CG/ksnapstress
cd /tmp || exit 1

run_seed() { # SEED SECONDS
	seed=$1 secs=$2
	info "stress: seed $seed for $secs s (replay: guestprobe stress $seed $secs)"
	if ! modprobe ksnap metrics=pgfault,nr_free_pages period_us=500 ring_kb=64; then
		fail "stress $seed: module loads" "modprobe status 0" "failure"
		return
	fi
	start=$(date +%s)
	guestprobe stress "$seed" "$secs" > /out/stress-$seed.txt 2>&1
	st=$?
	el=$(( $(date +%s) - start ))
	info "stress $seed: $(tail -n 1 /out/stress-$seed.txt) ($el s)"
	check "stress $seed: the run ends without an unexpected error" 0 $st
	if [ $el -le $((secs + 30)) ]; then
		pass "stress $seed: bounded ($el s for $secs s)"
	else
		fail "stress $seed: bounded" "<= $((secs + 30)) s" "$el s"
	fi
	# No ksnapd left over; the module answers and is consistent.
	check "stress $seed: no ksnapd left running" 0 "$(pidof ksnapd | wc -w)"
	e=$(cat $KSNAP_SYS/enable)
	s=$(sed -n 's/^state //p' $KSNAP_SYS/stats)
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
	usleep 300000
	check "stress $seed: a collection starts afterwards" ok "$(enable 1)"
	sleep 1
	check "stress $seed: and stops" ok "$(enable 0)"
	wait_pid $kpid 30
	check "stress $seed: ksnapd writes it out" 0 $?
	ksnap-verify /out/after-$seed.tsv > /out/after-$seed.verify 2>&1
	check "stress $seed: ksnap-verify says intact" 0 $?
	rmmod ksnap
	check "stress $seed: rmmod afterwards" 0 $?
}

run_seed 1 20
run_seed "$(date +%s)" 10
rmdir $CG/ksnapstress
finish
