# SPDX-License-Identifier: MIT
# In the chroot, after the install, as an admin would before a reboot:
# the module's options into /etc/modprobe.d/ksnap.conf and loading at boot
# switched on in /etc/modules-load.d/ksnap.conf.  Both files are first
# checked to be as shipped: nothing switched on.
TEST=configure-module-at-boot
. /guest/tests/syslib.sh
conf=/etc/modprobe.d/ksnap.conf
load=/etc/modules-load.d/ksnap.conf
for f in $conf $load; do
	if [ ! -f $f ]; then
		fail "ksnapd ships $f" "the file" "none"
		continue
	fi
	active=$(grep -v '^[[:space:]]*#' $f | grep -c '[^[:space:]]')
	check "$f as shipped switches nothing on (only comments)" 0 "$active"
	dpkg-query -S $f >/dev/null 2>&1 && pass "$f belongs to a package (a conffile: purge removes it)" ||
		fail "$f belongs to a package" "dpkg-query -S $f" "none"
done
echo "options ksnap metrics=$TEST_METRICS ring_kb=$TEST_RING_KB period_us=$TEST_PERIOD_US" >> $conf
sed -i 's/^#ksnap$/ksnap/' $load
check "the line that loads ksnap at boot is uncommented" 1 "$(grep -c '^ksnap$' $load)"
end_test
