# SPDX-License-Identifier: MIT
# In the chroot: a second `apt-get install` of the same packages, as a
# user repeating the install: apt says they are the newest version and
# nothing is rebuilt or touched.
TEST=second-install-changes-nothing
. /guest/tests/syslib.sh
state() {
	ls -l --time-style=+%s.%N /lib/modules/*/updates/dkms/ksnap.ko* /var/lib/dkms/ksnap/*/*/*/log/make.log 2>&1
	dkms status ksnap 2>&1
	dpkg-query -W ksnap-dkms ksnapd 2>&1
}
before=$(state)
cd /root/debs || exit 1
st=0
apt-get install -y ./ksnap-dkms_*.deb ./ksnapd_*.deb > /tmp/second-install.log 2>&1 || st=$?
check_st "a second apt-get install of the same version succeeds" 0 $st /tmp/second-install.log
check_lines "apt says both packages are already the newest version" 2 "is already the newest version" "$(cat /tmp/second-install.log)"
check_lines "nothing is installed, upgraded or removed" 1 "0 upgraded, 0 newly installed, 0 to remove" "$(cat /tmp/second-install.log)"
after=$(state)
if [ "$before" = "$after" ]; then
	pass "the module, DKMS's build log and the packages are untouched"
else
	fail "the module, DKMS's build log and the packages are untouched" "the same state" "a change"
	show "$(printf '%s\n' "$before" > /tmp/a; printf '%s\n' "$after" | diff /tmp/a - )"
fi
end_test
