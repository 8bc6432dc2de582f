# SPDX-License-Identifier: MIT
# Run system tests one after the other, each timed: sh steps.sh NAME...
# (tests/system/NAME.sh, /guest/tests/NAME.sh in the guest or chroot).
# Every test runs even if one before it failed; the status is 1 if any
# failed.  "# time: NAME SECONDS" lines go to /out/results.txt.
# A test ends with end_test (syslib.sh), which writes "# end: NAME" there:
# one that stopped before it without a failing check of its own (a script
# that died) gets a "not ok" line here, so that it is counted as failed
# wherever the step's own status is not looked at.
R=/out/results.txt

# lines PATTERN: how many lines of the results match PATTERN.
lines() {
	_n=$(grep -c -e "$1" "$R" 2>/dev/null)
	echo "${_n:-0}"
}

st=0
for t in "$@"; do
	echo "== $t"
	b=$(date +%s)
	ends=$(lines "^# end: $t\$")
	fails=$(lines "^not ok - $t: ")
	s=0
	sh /guest/tests/$t.sh || s=$?
	if [ "$(lines "^# end: $t\$")" -le "$ends" ]; then
		[ "$(lines "^not ok - $t: ")" -gt "$fails" ] ||
			echo "not ok - $t: runs to its end: expected its last line '# end: $t', got exit status $s before it and no failing check" |
			tee -a "$R"
		st=1
	fi
	[ $s -eq 0 ] || st=1
	echo "# time: $t $(( $(date +%s) - b ))" | tee -a "$R"
done
exit $st
