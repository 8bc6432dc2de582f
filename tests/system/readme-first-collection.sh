# SPDX-License-Identifier: MIT
# README.md's "A first collection", run literally in the booted system with
# the packages installed: the commands between the README's
# <!-- first-collection --> markers (tests/system/run adds README.md to the
# guest's /guest/files/), one line at a time, each exiting 0, and their
# result: a stream ksnap-verify finds intact and an HTML page that holds
# the chart of every default column.  The README and this test cannot
# drift: the test has no copy of the commands.
TEST=readme-first-collection
. /guest/tests/syslib.sh
readme=/guest/files/README.md
dir=/tmp/first-collection
cmds=/out/first-collection.sh
mkdir -p $dir
if [ ! -f $readme ]; then
	fail "README.md is in the guest" "/guest/files/README.md" "missing"
	exit 1
fi
sed -n '/^<!-- first-collection -->$/,/^<!-- \/first-collection -->$/p' $readme |
	sed '/^<!--/d; /^```/d; /^[[:space:]]*$/d' > $cmds
check "README.md's first collection is five commands" 5 "$(wc -l < $cmds)"
sed 's/^/#   /' $cmds | tee -a "$RESULTS"

# The system runs as root and may have no sudo: the README's sudo is then
# the command itself.
if ! command -v sudo >/dev/null 2>&1; then
	mkdir -p $dir/bin
	printf '#!/bin/sh\nexec "$@"\n' > $dir/bin/sudo
	chmod +x $dir/bin/sudo
	PATH=$dir/bin:$PATH
	export PATH
fi
# A collection left running by an earlier test would not be this one.
[ "$(cat $KSNAP_SYS/enable 2>/dev/null)" = 1 ] && echo 0 > $KSNAP_SYS/enable

n=0
while IFS= read -r line; do
	n=$((n + 1))
	(cd $dir && sh -c "$line") > /out/first-collection.$n.log 2>&1
	st=$?
	check "README command $n exits 0: $line" 0 $st
	[ $st -eq 0 ] || show "$(tail -n 8 /out/first-collection.$n.log)"
done < $cmds

page=$dir/ksnap.html
if [ -s $page ]; then
	pass "the page ksnap.html is written ($(wc -c < $page) bytes)"
else
	fail "the page ksnap.html is written" "a non-empty file" "$(ls -l $page 2>&1)"
fi
stream=$dir/ksnap.tsv
rows=$(tsv_rows $stream 2>/dev/null | wc -l)
if [ "${rows:-0}" -gt 0 ]; then
	pass "the stream ksnap.tsv has rows ($rows)"
else
	fail "the stream ksnap.tsv has rows" "> 0" "${rows:-none}"
fi
for m in pgfault pgmajfault nr_free_pages; do
	check "the page names the default column $m" yes \
		"$(grep -q "$m" $page 2>/dev/null && echo yes || echo no)"
done
cp $stream $page /out/ 2>/dev/null
figure "first-collection-rows" "$rows"

# Give the device back to the service, as the README says, for the tests
# after this one.
systemctl start ksnapd
if poll 30 attached; then
	pass "ksnapd.service holds /dev/ksnap again after the first collection"
else
	fail "ksnapd.service holds /dev/ksnap again after the first collection" "reader attached" "reader $(ksnap_stat reader)"
fi
end_test
