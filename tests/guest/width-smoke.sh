# SPDX-License-Identifier: MIT
# Guest half of the width test's short version (width.sh): 200 cgroups of
# 4 counters at 10 ms for 10 s; the refusals past the limits as there.
# guest: --mem 2048
TEST=width-smoke
WIDTH_CGROUPS=${WIDTH_CGROUPS:-200}
WIDTH_SECS=${WIDTH_SECS:-10}
. /guest/tests/width.sh
