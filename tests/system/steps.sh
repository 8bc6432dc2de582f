# SPDX-License-Identifier: MIT
# Run system tests one after the other, each timed: sh steps.sh NAME...
# (tests/system/NAME.sh, /guest/tests/NAME.sh in the guest or chroot).
# Every test runs even if one before it failed; the status is 1 if any
# failed.  "# time: NAME SECONDS" lines go to /out/results.txt.
st=0
for t in "$@"; do
	echo "== $t"
	b=$(date +%s)
	sh /guest/tests/$t.sh || st=1
	echo "# time: $t $(( $(date +%s) - b ))" | tee -a /out/results.txt
done
exit $st
