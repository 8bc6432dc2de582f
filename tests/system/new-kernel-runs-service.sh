# SPDX-License-Identifier: MIT
# Test 5, in the system rebooted into the kernel it was upgraded to
# (kernel-upgrade-builds-module.sh): the running kernel is the new one
# and ksnapd works there: a 1 kHz collection of 10 s through the journal
# is intact and adds up.  (boot-loads-module-with-options.sh checks the
# module and the unit first.)
TEST=new-kernel-runs-service
. /guest/tests/syslib.sh
newest=$(ls /lib/modules | sort -V | tail -n 1)
check "the system booted the newest kernel it has" "$newest" "$(uname -r)"
out=/out/new-kernel
collect_to_journal "10 s at 1 kHz on $(uname -r)" 10 $out || exit 1
check "ksnap-verify exits 0 on the journal" 0 $verify_status
[ $verify_status -eq 0 ] || show "$(tail -n 12 $out.verify)"
check "the journal holds every row ksnapd wrote" "$(stats_key $out.tsv total_snapshots)" "$(tsv_rows $out.tsv | wc -l)"
if id=$(identity $out.tsv); then pass "STATS identity: $id"; else fail "STATS identity adds up" "taken = rows + counted" "$id"; fi
figure "rows-new-kernel" "$(tsv_rows $out.tsv | wc -l) rows in 10 s"
end_test
