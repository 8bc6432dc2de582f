# SPDX-License-Identifier: MIT
# Test 7, in the booted system: ksnapd upgraded by apt-get to a newer
# version (the test copy's, the newer of /guest/files/ksnapd_*.deb) in the
# middle of a collection: its maintainer scripts restart the service
# cleanly with the new binary, and the collection resumes.  (ksnap-dkms was upgraded in
# the chroot before boot: dkms-upgrade-replaces-build.sh.)
TEST=upgrade-restarts-service
. /guest/tests/syslib.sh
old=$(dpkg-query -W -f '${Version}' ksnapd)
deb=$(newer_deb ksnapd) ||
	fail "the harness gives a newer ksnapd" "a /guest/files/ksnapd_*.deb newer than $old" "$(ls /guest/files)"
new=$(dpkg-deb -f "$deb" Version)
restart_mid_collection /out/upgrade apt-get install -y "$deb"
check "ksnapd $new is installed (was $old)" "$new" "$(dpkg-query -W -f '${Version}' ksnapd)"
check "the running ksnapd is the new binary" "ksnapd $new" "$(ksnapd --version | cut -d' ' -f1,2)"
check_lines "apt-get upgraded it" ">0" "Unpacking ksnapd ($new) over ($old)" "$(cat /out/upgrade.restart.log)"
end_test
