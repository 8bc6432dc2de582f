# SPDX-License-Identifier: MIT
# In the chroot, right after `apt-get install ./ksnap-dkms_*.deb
# ./ksnapd_*.deb`: DKMS built and installed ksnap.ko for every kernel of
# the system that has headers (or for the kernels given as arguments),
# with the compiler that kernel was built with, and signed it with its
# MOK key.  A kernel given as an argument without headers fails, and so
# does a system where no kernel has them: DKMS has built nothing there.
TEST=dkms-builds-module
. /guest/tests/syslib.sh
ver=$(dpkg-query -W -f '${Version}' ksnap-dkms 2>/dev/null)
check_in "ksnap-dkms is installed" "$(dpkg-query -W -f '${Status}' ksnap-dkms 2>/dev/null)" "install ok installed"
check_in "ksnapd is installed" "$(dpkg-query -W -f '${Status}' ksnapd 2>/dev/null)" "install ok installed"
[ -f /usr/src/ksnap-$ver/dkms.conf ] && pass "the module's source is in /usr/src/ksnap-$ver with dkms.conf" ||
	fail "the module's source is in /usr/src/ksnap-$ver with dkms.conf" "/usr/src/ksnap-$ver/dkms.conf" "$(ls -d /usr/src/ksnap* 2>&1)"
grep -q '^AUTOINSTALL="yes"' /usr/src/ksnap-$ver/dkms.conf &&
	pass "dkms.conf has AUTOINSTALL, so a new kernel gets the module" ||
	fail "dkms.conf has AUTOINSTALL" 'AUTOINSTALL="yes"' "$(grep AUTOINSTALL /usr/src/ksnap-$ver/dkms.conf)"
info "dkms status: $(dkms status ksnap 2>&1 | tr '\n' ';')"
nheaders=0 noheaders=""
for k in ${*:-$(ls /lib/modules)}; do
	if [ ! -e /lib/modules/$k/build ]; then
		noheaders="$noheaders linux-headers-$k"
		[ $# -eq 0 ] ||
			fail "$k has its headers, for DKMS to build ksnap.ko" "linux-headers-$k (/lib/modules/$k/build)" "none"
		continue
	fi
	nheaders=$((nheaders + 1))
	ko=$(dkms_ko $k)
	if [ ! -f $ko ]; then
		fail "DKMS installed ksnap.ko for $k" "$ko" "no file"
		continue
	fi
	pass "DKMS installed ksnap.ko for $k ($ko)"
	check "ksnap.ko's vermagic names $k" "$k" "$(modinfo -F vermagic $ko | cut -d' ' -f1)"
	dkms status ksnap/$ver -k $k 2>/dev/null | grep -q ': installed' &&
		pass "dkms status says ksnap/$ver is installed for $k" ||
		fail "dkms status says ksnap/$ver is installed for $k" "installed" "$(dkms status ksnap/$ver -k $k 2>&1)"
	# The kernel's compiler (its config's CONFIG_CC_VERSION_TEXT) built
	# the module too: gcc-12 on Debian 12, gcc-14 on Debian 13.
	kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' /boot/config-$k)
	mcc=$(readelf -p .comment "$(ko_elf $ko)" 2>/dev/null | sed -n 's/.*\(GCC: .*\)/\1/p' | sort -u | head -1)
	kver=$(echo "$kcc" | sed 's/^[^ ]* //')
	case "$mcc" in
	*"$kver"*) pass "ksnap.ko for $k was built by the kernel's compiler ($kcc)" ;;
	*) fail "ksnap.ko for $k was built by the kernel's compiler" "'$kver'" "'$mcc'" ;;
	esac
	signer=$(modinfo -F signer $ko)
	figure "signer($k)" "${signer:-none}"
	figure "compiler($k)" "$mcc"
	[ -n "$signer" ] && pass "ksnap.ko for $k is signed (signer: $signer)" ||
		fail "ksnap.ko for $k is signed by DKMS's MOK key" "a signer" "none"
done
[ $nheaders -gt 0 ] || [ $# -gt 0 ] ||
	fail "a kernel of the system has its headers, for DKMS to build ksnap.ko" \
		"one of:${noheaders:- (no kernel in /lib/modules)}" "none installed (no /lib/modules/*/build)"
if [ -f /var/lib/dkms/mok.pub ]; then
	info "DKMS's MOK certificate: $(openssl x509 -inform DER -in /var/lib/dkms/mok.pub -noout -subject 2>&1)"
fi
end_test
