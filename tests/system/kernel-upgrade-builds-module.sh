# SPDX-License-Identifier: MIT
# Test 5, in the chroot of a Debian 12 system with ksnap installed: the
# kernel upgraded to bookworm-backports' 6.12 (linux-image-amd64 and
# linux-headers-amd64, as a user installs them; the image holds their
# packages already).  DKMS's kernel hook builds ksnap.ko for it, with an
# initrd, so that the next boot (new-kernel-runs-service.sh) runs it.
TEST=kernel-upgrade-builds-module
. /guest/tests/syslib.sh
before=$(ls /lib/modules)
st=0
apt-get install -y -t bookworm-backports linux-image-amd64 linux-headers-amd64 > /out/kernel-upgrade.log 2>&1 || st=$?
check_st "apt-get install -t bookworm-backports linux-image-amd64 linux-headers-amd64 succeeds" 0 $st /out/kernel-upgrade.log
new=$(ls /lib/modules | grep -vxF "$before" | sort -V | tail -n 1)
case "$new" in
6.12.*) pass "the upgrade installed kernel $new" ;;
*) fail "the upgrade installed a 6.12 kernel" "a new 6.12.* in /lib/modules" "'$new'" ;;
esac
figure "new-kernel" "$new"
# The release as a fixed string: its "+" (6.12.95+deb12-amd64) is a
# quantifier in a pattern.
hook=$(grep -E "auto ?install" /out/kernel-upgrade.log | grep -F " $new" | head -n 1)
[ -n "$hook" ] && pass "DKMS's kernel hook ran for $new ($hook)" ||
	fail "DKMS's kernel hook ran for $new" "an autoinstall line naming $new in /out/kernel-upgrade.log" "none"
sh /guest/tests/dkms-builds-module.sh $new || nfail=$((nfail + 1))
[ -f /boot/initrd.img-$new ] && pass "$new has an initrd" || fail "$new has an initrd" "/boot/initrd.img-$new" "none"
end_test
