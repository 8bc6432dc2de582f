# SPDX-License-Identifier: MIT
# Test 4: `systemctl restart ksnapd` in the middle of a collection: the
# stream resumes in the journal and taken = rows + lost + ... still holds
# across it.
TEST=restart-resumes-collection
. /guest/tests/syslib.sh
restart_mid_collection /out/restart systemctl restart ksnapd
end_test
