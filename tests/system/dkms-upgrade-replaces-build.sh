# SPDX-License-Identifier: MIT
# In the chroot: ksnap-dkms upgraded to a newer version (the same sources
# under a bumped version, /guest/files/ksnap-dkms_*.deb): DKMS removes the
# old version's build and module and builds and installs the new one for
# every kernel.  (The build runs here, natively: under emulation one takes
# minutes.  ksnapd's upgrade, which restarts the service, runs in the
# booted system: upgrade-restarts-service.sh.)
TEST=dkms-upgrade-replaces-build
. /guest/tests/syslib.sh
old=$(dpkg-query -W -f '${Version}' ksnap-dkms)
deb=$(newer_deb ksnap-dkms) ||
	fail "the harness gives a newer ksnap-dkms" "a /guest/files/ksnap-dkms_*.deb newer than $old" "$(ls /guest/files)"
new=$(dpkg-deb -f "$deb" Version)
dpkg --compare-versions "$new" gt "$old" && pass "the test copy's version $new is newer than $old" ||
	fail "the test copy's version is newer" "> $old" "$new"
stamp=/tmp/before-upgrade
touch $stamp
sleep 1
st=0
apt-get install -y "$deb" > /tmp/dkms-upgrade.log 2>&1 || st=$?
check_st "apt-get install of ksnap-dkms $new over $old succeeds" 0 $st /tmp/dkms-upgrade.log
check "ksnap-dkms $new is installed" "$new" "$(dpkg-query -W -f '${Version}' ksnap-dkms)"
[ ! -e /usr/src/ksnap-$old ] && pass "/usr/src/ksnap-$old is gone" || fail "/usr/src/ksnap-$old is gone" "no directory" "$(ls -d /usr/src/ksnap-$old)"
[ ! -e /var/lib/dkms/ksnap/$old ] && pass "DKMS's build of $old is gone (/var/lib/dkms/ksnap/$old)" ||
	fail "DKMS's build of $old is gone" "no /var/lib/dkms/ksnap/$old" "$(ls -d /var/lib/dkms/ksnap/$old)"
check "dkms status lists ksnap $new only" "" "$(dkms status ksnap 2>&1 | grep -v "^ksnap/$new")"
for k in $(ls /lib/modules); do
	[ -e /lib/modules/$k/build ] || continue
	ko=$(dkms_ko $k)
	dkms status ksnap/$new -k $k 2>/dev/null | grep -q ': installed' &&
		pass "ksnap/$new is installed for $k" ||
		fail "ksnap/$new is installed for $k" "installed" "$(dkms status ksnap/$new -k $k 2>&1)"
	[ $ko -nt $stamp ] && pass "$ko is the new build (newer than the upgrade's start)" ||
		fail "$ko is the new build" "a file newer than the upgrade's start" "$(ls -l --time-style=full-iso $ko $stamp 2>&1 | tr '\n' ' ')"
done
end_test
