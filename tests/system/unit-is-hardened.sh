# SPDX-License-Identifier: MIT
# The unit's sandbox, in the booted system: systemd-analyze security's
# exposure score, and the running ksnapd without any capability and
# unable to gain privileges.
TEST=unit-is-hardened
. /guest/tests/syslib.sh
systemd-analyze security ksnapd --no-pager > /out/security.txt 2>&1
score=$(sed -n 's/.*Overall exposure level for ksnapd.service: *\([0-9.]*\) *\([A-Z]*\).*/\1 \2/p' /out/security.txt)
figure "security" "$score"
sed -n '/✗/p' /out/security.txt | sed 's/  */ /g; s/^/#   not set: /' | head -40
n=${score%% *}
if [ -n "$n" ] && awk -v n="$n" 'BEGIN { exit !(n <= 2.0) }'; then
	pass "systemd-analyze security ksnapd: exposure $score, at most 2.0"
else
	fail "systemd-analyze security ksnapd: exposure at most 2.0" "<= 2.0" "'$score' (/out/security.txt)"
fi
pid=$(ksnapd_pid)
check "ksnapd's effective capabilities are none" 0000000000000000 "$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/$pid/status)"
check "ksnapd's bounding set is empty" 0000000000000000 "$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/$pid/status)"
check "ksnapd cannot gain privileges (NoNewPrivs)" 1 "$(sed -n 's/^NoNewPrivs:[[:space:]]*//p' /proc/$pid/status)"
check "journald's rate limit is off for ksnapd" 0 "$(systemctl show -p LogRateLimitIntervalUSec --value ksnapd)"
check "Restart=on-failure" on-failure "$(systemctl show -p Restart --value ksnapd)"
# ProtectKernelTunables makes /sys read-only for ksnapd but the module's
# directory (ReadWritePaths): in its mount namespace, access(W_OK) says
# EROFS for a read-only mount.
rw_in_unit() { # PATH: writable (yes) or not (no) in ksnapd's mounts
	nsenter --target "$pid" --mount -- sh -c '[ -w "$1" ]' sh "$1" && echo yes || echo no
}
check "ksnapd may write the knobs (/sys/class/misc/ksnap/enable)" yes "$(rw_in_unit $KSNAP_SYS/enable)"
check "ksnapd may write the knobs through the deprecated /sys/kernel/ksnap" yes "$(rw_in_unit /sys/kernel/ksnap/enable)"
check "the rest of /sys is read-only for ksnapd" no "$(rw_in_unit /sys/kernel/mm/transparent_hugepage/enabled)"
end_test
