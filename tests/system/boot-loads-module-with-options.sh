# SPDX-License-Identifier: MIT
# Test 1, in the booted system: systemd-modules-load loaded ksnap.ko at
# boot (switched on in /etc/modules-load.d/ksnap.conf), the DKMS-built
# module for the running kernel, with the options of
# /etc/modprobe.d/ksnap.conf; ksnapd.service is active and holds the
# device.
TEST=boot-loads-module-with-options
. /guest/tests/syslib.sh
k=$(uname -r)
figure "kernel" "$k"
if module_loaded; then pass "ksnap is loaded after boot"; else fail "ksnap is loaded after boot" "ksnap in /proc/modules" "not loaded"; fi
# By its syslog identifier: it runs before journald, whose import of its
# early lines (from the kernel's log buffer) does not tag them with the unit.
check_lines "systemd-modules-load inserted it" ">0" "Inserted module 'ksnap'" \
	"$(journalctl -b -t systemd-modules-load -o cat --no-pager)"
path=$(modinfo -n ksnap 2>&1)
case "$path" in
*/lib/modules/$k/updates/dkms/ksnap.ko*) pass "the module is DKMS's build for $k ($path)" ;;
*) fail "the module is DKMS's build for $k" "/lib/modules/$k/updates/dkms/ksnap.ko" "'$path'" ;;
esac
figure "signer" "$(modinfo -F signer ksnap 2>/dev/null)"
check "period_us from /etc/modprobe.d/ksnap.conf" "$TEST_PERIOD_US" "$(cat $KSNAP_SYS/period_us 2>&1)"
check "metrics from /etc/modprobe.d/ksnap.conf" "$TEST_METRICS" "$(cat $KSNAP_SYS/metrics 2>&1)"
check "ring_kb from /etc/modprobe.d/ksnap.conf" "$TEST_RING_KB" "$(cat /sys/module/ksnap/parameters/ring_kb 2>&1)"
check "ksnapd.service is active" active "$(systemctl is-active ksnapd)"
check "ksnapd.service is enabled (at boot)" enabled "$(systemctl is-enabled ksnapd)"
if poll 60 attached "$(ksnapd_pid)"; then
	pass "ksnapd (PID $(ksnapd_pid)) holds /dev/ksnap"
else
	fail "ksnapd holds /dev/ksnap" "'attached' in $KSNAP_SYS/stats/reader" "reader $(ksnap_stat reader)"
fi
check "ksnapd --version prints the package's version" \
	"ksnapd $(dpkg-query -W -f '${Version}' ksnapd)" "$(ksnapd --version | cut -d' ' -f1,2)"
failed=$(systemctl --failed --no-legend --plain | awk '{ print $1 }' | tr '\n' ' ')
check "no unit failed during boot" "" "$failed"
end_test
