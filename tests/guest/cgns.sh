# SPDX-License-Identifier: MIT
# Guest half of the cgroup-namespace test: patterns written from inside a
# container's cgroup namespace name that namespace's tree, and the set
# followed while running stays in it.  The rescans that cgroup events
# start carry no path: a cgroup made outside the namespace, with a name
# the pattern would match at the host's root, never enters the set.
TEST=cgns
. /guest/tests/lib.sh
S=$KSNAP_SYS
WAIT_S=${WAIT_S:-40}

mkdir -p $CG/ctr/in1 $CG/in2
modprobe ksnap metrics=pgfault,cpu.stat.usage period_us=2000 cgroups=/ctr
check "load" 0 $? || { finish; exit 1; }

# guestprobe moves itself into /ctr, unshares its cgroup namespace there,
# and writes the knob: "/in*" is /ctr/in* of the host's tree.
check "the cgroups knob written from inside /ctr's cgroup namespace" ok \
	"$(guestprobe nswrite $CG/ctr $S/cgroups '/in*')" || { finish; exit 1; }
check "the namespace's match, not the host's /in2" "/in1" \
	"$(ring_cgroups cpu.stat.usage)"

check "start" ok "$(guestprobe write $S/enable 1)"
wait_samples 5
mkdir $CG/ctr/in3 $CG/in4
check_wait "a cgroup made in the namespace joins the set, one made outside does not" \
	$WAIT_S ring_cgroups_are "/in1 /in3"
check "the set changed by an event's rescan" yes \
	"$([ "$(ksnap_stat event_rescans)" -ge 1 ] && echo yes || echo "no ($(ksnap_stat event_rescans))")"
rmdir $CG/in4
mkdir $CG/in5
wait_samples 20
check "after more events outside the namespace, the set still names only its cgroups" \
	"/in1 /in3" "$(ring_cgroups cpu.stat.usage)"
check "stop" ok "$(guestprobe write $S/enable 0)"
unload
rmdir $CG/ctr/in1 $CG/ctr/in3 $CG/in2 $CG/in5
# guestprobe's process has exited: /ctr is empty.
rmdir $CG/ctr
finish
