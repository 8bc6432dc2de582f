# SPDX-License-Identifier: MIT
# The growth test (grow.sh) on a guest of 16 online vCPUs: a read walks
# every online CPU, so a cgroup costs more and the bound admits fewer.
# make check-all.
# guest: --smp 16
# guest-alone: 16 online CPUs, which a group's maxcpus=2 (cpus, fold) takes away
TEST=grow-wide
. /guest/tests/grow.sh
