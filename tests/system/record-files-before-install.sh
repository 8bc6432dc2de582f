# SPDX-License-Identifier: MIT
# In the chroot of the image, before the packages are installed: the list
# of files that purge-removes-everything.sh compares with the list after
# `apt-get purge` (syslib.sh: file_list).
TEST=record-files-before-install
. /guest/tests/syslib.sh
file_list /out/files-before-install.txt
info "$(wc -l < /out/files-before-install.txt) paths listed before the install"
end_test
