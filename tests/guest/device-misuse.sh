# SPDX-License-Identifier: MIT
# Guest half of the device-misuse test: one reader at a time, read-only
# mappings, and module lifetime against open files, mappings and a running
# timer.
TEST=device-misuse
. /guest/tests/lib.sh

# load_for WHAT: make sure ksnap is loaded for the next part; a failed
# modprobe fails that part (with the kernel's last words) instead of
# skipping it.
load_for() {
	module_loaded && return 0
	modprobe ksnap 2> /tmp/modprobe.err && return 0
	fail "ksnap loads for: $1" "modprobe status 0" "failure: $(cat /tmp/modprobe.err)"
	dmesg | tail -n 5 | sed 's/^/#   /'
	return 1
}

# open_only: runs with fd 3 on /dev/ksnap, opened read-write (a reader's
# open) by this shell and never mapped.  The open file alone holds a module
# reference (fops.owner).
open_only() {
	check "an open fd alone (not mapped) makes delete_module say in use" EAGAIN "$(guestprobe unload ksnap)"
	rmmod ksnap 2> /tmp/rmmod.err
	st=$?
	if [ $st -ne 0 ] && module_loaded; then
		pass "rmmod while the device is only open is refused ($(cat /tmp/rmmod.err))"
	else
		fail "rmmod while the device is only open is refused" "rmmod fails, module loaded" \
			"rmmod status $st, loaded: $(module_loaded && echo yes || echo no)"
	fi
	check "a second reader is refused while the shell has it open" EBUSY "$(guestprobe open)"
	check "a read-only (query) open beside it is not" ok "$( (exec 4< /dev/ksnap) 2>/dev/null && echo ok)"
	check "the catalogue is listed beside it" ok "$(ksnapd --list-metrics > /dev/null && echo ok)"
	return 0
}

if ! modprobe ksnap; then
	fail "module loads with default parameters" "status 0" "failure"
	finish
	exit
fi
pass "module loads with default parameters"
check "/dev/ksnap exists" yes "$([ -c /dev/ksnap ] && echo yes || echo no)"
# The files are the misc device's attributes; /sys/kernel/ksnap, their
# first home, is a link to them.
check "the attributes are the misc device's" /sys/devices/virtual/misc/ksnap \
	"$(readlink -f $KSNAP_SYS)"
check "/sys/kernel/ksnap links to the device's directory" /sys/devices/virtual/misc/ksnap \
	"$(readlink -f /sys/kernel/ksnap)"
check "a knob reads the same through the link" "$(cat $KSNAP_SYS/period_us)" \
	"$(cat /sys/kernel/ksnap/period_us 2>&1)"
check "stats/ through the link" stopped "$(cat /sys/kernel/ksnap/stats/state 2>&1)"
check "stats/: one file per value" \
	"bad_tail cgroup_price_ns cgroups_found cgroups_removed cgroups_skipped cgroups_unreadable columns_admitted cpu event_rescans exits exits_lost generation lateness_max_ns lateness_sum_ns lost missed read_bound_ns read_estimate_ns read_max_ns read_recent_ns read_sum_ns reader regrows rescans set_change_pause_max_ns set_change_waits set_changes sheds state stop_reason stride taken thinned wakeups" \
	"$(ls $KSNAP_SYS/stats | tr '\n' ' ' | sed 's/ $//')"
check "plan/: one file per value" \
	"cache_lines_per_cpu columns live_cpus possible_cpus single summed_cpu_times summed_other summed_vm_events" \
	"$(ls $KSNAP_SYS/plan | tr '\n' ' ' | sed 's/ $//')"
check "every file holds one line" "" \
	"$(for f in $KSNAP_SYS/stats/* $KSNAP_SYS/plan/*; do [ "$(wc -l < $f)" = 1 ] || echo "$f"; done)"
check "a second open of /dev/ksnap is EBUSY" EBUSY "$(guestprobe open2)"
check "the device can be opened again after the first reader closed" ok "$(guestprobe open)"
check "mapping the control page writable is EPERM" EPERM "$(guestprobe mmap-write)"
check "mprotect(PROT_WRITE) on the read-only control page is EACCES" EACCES "$(guestprobe mprotect-write)"
check "mapping the record pages writable is EPERM" EPERM "$(guestprobe mmap-data-write)"
check "mapping past the end of the device is EINVAL" EINVAL "$(guestprobe mmap-past-end)"
check "the consumer page maps read-write" ok "$(guestprobe mmap-consumer)"

# The reader session: done and seen by ioctl on the reader's file, checked
# by the kernel; the consumer page carries the tail and nothing else.
guestprobe handshake > /tmp/handshake.out 2> /tmp/handshake.err
check "handshake: the probe ran to its end" "0 yes" \
	"$? $(grep -q '^query_seen ' /tmp/handshake.out && echo yes || echo no)"
hs() { # STEP: its result
	sed -n "s/^$1 //p" /tmp/handshake.out
}
check "handshake: a reader that has not reported seen is open, not attached" open "$(hs reader_before_seen)"
check "handshake: poll() is readable until it has" readable "$(hs poll_before_seen)"
check "handshake: SEEN with a state that is none is EINVAL" EINVAL "$(hs seen_bad_state)"
check "handshake: SEEN of a collection to come is EINVAL" EINVAL "$(hs seen_future)"
check "handshake: a refused SEEN does not attach the reader" open "$(hs reader_after_bad_seen)"
check "handshake: SEEN of the collection now" ok "$(hs seen)"
check "handshake: the reader is attached once it has" attached "$(hs reader_after_seen)"
check "handshake: poll() sleeps with nothing new" idle "$(hs poll_after_seen)"
check "handshake: a start beside a reader done with the last collection" ok "$(hs start1)"
check "handshake: SEEN stopped of the running collection is EINVAL" EINVAL "$(hs seen_stopped_while_running)"
check "handshake: DONE of the running collection is EINVAL" EINVAL "$(hs done_running)"
check "handshake: stop" ok "$(hs stop1)"
check "handshake: a start is refused while the reader has not reported done" EBUSY "$(hs start_not_done)"
check "handshake: a version 3 reader's done_generation in the page is ignored (start still EBUSY)" EBUSY "$(hs start_garbage)"
check "handshake: its seen_state in the page is ignored (poll() still readable)" readable "$(hs poll_garbage)"
check "handshake: DONE of a collection to come is EINVAL" EINVAL "$(hs done_future)"
check "handshake: DONE with a reserved field set is EINVAL" EINVAL "$(hs done_reserved)"
check "handshake: refused DONEs change nothing (start still EBUSY)" EBUSY "$(hs start_after_bad_done)"
check "handshake: SEEN of the stop" ok "$(hs seen_stop)"
check "handshake: then poll() sleeps" idle "$(hs poll_seen_stop)"
check "handshake: DONE of the stopped collection" ok "$(hs done)"
check "handshake: the next start is accepted" ok "$(hs start2)"
check "handshake: and its stop" ok "$(hs stop2)"
check "handshake: DONE of that one" ok "$(hs done2)"
check "handshake: ENABLE with on=2 is EINVAL" EINVAL "$(hs enable_on_2)"
check "handshake: ENABLE with an unknown flag is EINVAL" EINVAL "$(hs enable_bad_flag)"
check "handshake: ENABLE with a reserved field set is EINVAL" EINVAL "$(hs enable_reserved)"
check "handshake: refused ENABLEs start nothing" stopped "$(hs state_after_bad_enables)"
check "handshake: ENABLE on=1 from the session" ok "$(hs enable_start)"
check "handshake: starts the next collection" running "$(hs state_after_enable_start)"
check "handshake: ENABLE on=0 from the session" ok "$(hs enable_stop)"
check "handshake: stops it" stopped "$(hs state_after_enable_stop)"
check "handshake: DONE of that one too" ok "$(hs done3)"
check "handshake: the kernel wrote no byte of the consumer page" yes "$(hs page_untouched)"
check "handshake: DONE on a query handle is EBADF" EBADF "$(hs query_done)"
check "handshake: SEEN on a query handle is EBADF" EBADF "$(hs query_seen)"
check "handshake: ENABLE on a query handle is EBADF" EBADF "$(hs query_enable)"
check "handshake: the reader gone, stats says none" none "$(ksnap_stat reader)"

# An open fd alone (never mapped) pins the module, until it is closed.
if open_only 3<> /dev/ksnap; then
	if rmmod ksnap 2> /tmp/rmmod.err; then
		pass "rmmod succeeds once the open fd is closed"
	else
		fail "rmmod succeeds once the open fd is closed" "status 0" "status $?: $(cat /tmp/rmmod.err)"
	fi
	check "the module is gone after that rmmod" no "$(module_loaded && echo yes || echo no)"
else
	fail "the shell opens /dev/ksnap read-write (fd 3)" "the open succeeds" "it failed"
fi
load_for "the mapping tests"

# A mapping alone (fd closed) pins the module.
guestprobe hold > /tmp/hold.out 2>&1 &
hpid=$!
wait_line /tmp/hold.out held
check "a process maps the device and closes the fd" held "$(head -n 1 /tmp/hold.out)"
rmmod ksnap 2>/dev/null
st=$?
if [ $st -ne 0 ] && module_loaded; then
	pass "rmmod while the device is mapped is refused"
else
	fail "rmmod while the device is mapped is refused" "rmmod fails, module loaded" "rmmod status $st, loaded: $(module_loaded && echo yes || echo no)"
fi
kill -TERM $hpid
wait_pid $hpid $WAIT_S
check "the mapping process unmaps cleanly" 0 $?

# rmmod while ksnapd reads a running collection.
if load_for "rmmod while ksnapd reads"; then
	check "start sampling" ok "$(guestprobe write $KSNAP_SYS/enable 1)"
	ksnapd --once -o /tmp/stream.tsv &
	kpid=$!
	# Attached: open, mapped, what it sees reported.
	wait_attached
	check "a second reader is refused while ksnapd holds the device" EBUSY "$(guestprobe open)"
	rmmod ksnap 2>/dev/null
	st=$?
	if [ $st -ne 0 ] && module_loaded; then
		pass "rmmod while ksnapd has the device mapped is refused"
	else
		fail "rmmod while ksnapd has the device mapped is refused" "rmmod fails, module loaded" "rmmod status $st, loaded: $(module_loaded && echo yes || echo no)"
	fi
	check "sampling still runs after the refused rmmod" 1 "$(cat $KSNAP_SYS/enable 2>&1)"
	check "stop sampling" ok "$(guestprobe write $KSNAP_SYS/enable 0)"
	wait_pid $kpid $WAIT_S
	check "ksnapd exits 0 after the stop" 0 $?
	rows=$(grep -c '^[0-9]' /tmp/stream.tsv)
	if [ "${rows:-0}" -gt 0 ]; then pass "ksnapd wrote rows ($rows)"; else fail "ksnapd wrote rows" "> 0" "'$rows'"; fi
	check "the stream's last line is STATS (its first field)" STATS "$(tail -n 1 /tmp/stream.tsv | cut -f1 | cut -c1-80)"
fi

# rmmod while sampling with nobody reading: the timer must be stopped
# and everything freed (the splat scan and kmemleak judge "clean").
if load_for "rmmod while sampling with no reader"; then
	check "start sampling with no reader" ok "$(guestprobe write $KSNAP_SYS/enable 1)"
	# The timer is live: it has fired.
	wait_samples 10
	rmmod ksnap
	check "rmmod while sampling with no reader succeeds" 0 $?
	check "the module is gone" no "$(module_loaded && echo yes || echo no)"
	check "the device's attributes are gone" no "$([ -e $KSNAP_SYS ] && echo yes || echo no)"
	check "/sys/kernel/ksnap is gone (the link too)" no \
		"$({ [ -e /sys/kernel/ksnap ] || [ -L /sys/kernel/ksnap ]; } && echo yes || echo no)"
	check "/dev/ksnap is gone" no "$([ -e /dev/ksnap ] && echo yes || echo no)"
fi
modprobe ksnap
check "the module loads again after that" 0 $?
rmmod ksnap
check "and unloads" 0 $?
finish
