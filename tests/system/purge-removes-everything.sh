# SPDX-License-Identifier: MIT
# Test 6: apt-get purge --autoremove ksnapd ksnap-dkms: the service stops,
# and the module, the DKMS tree, the unit, the configuration files and the
# libraries apt installed for them (libmicrohttpd) are gone.
# The files list (syslib.sh: file_list) after the purge is compared with
# the one taken in the chroot before the install.
TEST=purge-removes-everything
. /guest/tests/syslib.sh
st=0
apt-get purge -y --autoremove ksnapd ksnap-dkms > /out/purge.log 2>&1 || st=$?
check_st "apt-get purge --autoremove ksnapd ksnap-dkms succeeds" 0 $st /out/purge.log
for p in ksnapd ksnap-dkms; do
	s=$(dpkg-query -W -f '${Status}' $p 2>/dev/null) || s="no record"
	check_in "$p is purged" "$s" "no record" "unknown ok not-installed"
done
check "ksnapd.service is no longer running" inactive "$(systemctl is-active ksnapd)"
systemctl cat ksnapd >/dev/null 2>&1 && fail "systemd no longer knows ksnapd.service" "no unit" "$(systemctl cat ksnapd | head -n 1)" ||
	pass "systemd no longer knows ksnapd.service"
left=$(ls -d /lib/modules/*/updates/dkms/ksnap.ko* /var/lib/dkms/ksnap /usr/src/ksnap-* \
	/etc/modprobe.d/ksnap.conf /etc/modules-load.d/ksnap.conf \
	/lib/systemd/system/ksnapd.service /etc/systemd/system/*/ksnapd.service \
	/etc/systemd/system/ksnapd.service.d /usr/sbin/ksnapd /usr/bin/ksnap-verify 2>/dev/null)
check "no module, DKMS tree, source, unit, drop-in or configuration file is left" "" "$left"
module_loaded && info "ksnap.ko stays loaded in the running kernel until rmmod or reboot (no package unloads modules)"
file_list /out/files-after-purge.txt
diff /out/files-before-install.txt /out/files-after-purge.txt > /out/purge-diff.txt
# Expected: DKMS's machine-wide MOK key and certificate, made by its first
# build and kept for every later DKMS module (the key Secure Boot users
# enroll); nothing of ksnap's.
unexpected=$(grep '^[<>]' /out/purge-diff.txt | grep -v -E '^> f /var/lib/dkms/mok\.(key|pub)$')
check "the files after the purge are the files before the install (but DKMS's MOK key)" "" "$unexpected"
figure "purge-diff" "$(grep -c '^[<>]' /out/purge-diff.txt) paths: $(grep '^[<>]' /out/purge-diff.txt | tr '\n' ';')"
end_test
