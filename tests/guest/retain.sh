# SPDX-License-Identifier: MIT
# Guest half of the retention test: a collection whose cgroup pattern
# matches one more cgroup every set change writes a file per set (FILE,
# FILE.2, FILE.3, ...), and ksnapd --output-max-size keeps them within
# the size by removing the oldest closed files.  Checked:
#   - more files were written than are left, and ksnapd said so;
#   - the closed files left are within the size (the file being written
#     is never removed: it is not counted);
#   - ksnapd's messages count as many files removed as are missing, and
#     the STATS of the streams left count some of them
#     (ksnapd_files_removed, ksnapd_bytes_removed: those removed while
#     that stream was written; the removed streams' counts went with them);
#   - ksnap-verify checks FILE from the first file still there;
#   - a second run on the same FILE moves the first run's files aside
#     whole (FILE.old.1, FILE.old.1.N), which still check as a sequence.
TEST=retain
. /guest/tests/lib.sh
OUT=/tmp/retain
CAP=100k
CAP_BYTES=102400
SETS=14
WAIT_S=${WAIT_S:-60}
rm -rf $OUT
mkdir -p $OUT

# top_file: the highest N of the files FILE.N written so far (1: FILE).
top_file() {
	ls $OUT | sed -n 's/^r\.tsv$/1/p; s/^r\.tsv\.\([0-9]*\)$/\1/p' | sort -n | tail -n 1
}

# file_at_least N: ksnapd has opened its Nth file.
file_at_least() {
	_n=$(top_file)
	echo "the last file is number ${_n:-none} (want >= $1)"
	[ "${_n:-0}" -ge "$1" ]
}

mkdir -p $CG/rt-00
if ! modprobe ksnap metrics=memory.current 'cgroups=/rt-*' period_us=1000; then
	fail "retain: the module loads" "status 0" "failure"
	finish
	exit
fi
ksnapd --start -o $OUT/r.tsv --output-max-size $CAP 2> /out/retain.err &
kpid=$!
# ROWS rows a file (about 20 bytes each): the files pass the cap however
# soon a set change follows the mkdir that starts it.
ROWS=500
wait_rows $OUT/r.tsv $ROWS
# A cgroup more each time: each is a set change, and a new file.
i=1
while [ $i -lt $SETS ]; do
	mkdir $CG/rt-$(printf %02d $i)
	wait_for "file $((i + 1)) (a new set after rt-$i came)" $WAIT_S file_at_least $((i + 1)) ||
		break
	wait_rows $OUT/r.tsv.$((i + 1)) $ROWS
	i=$((i + 1))
done
top=$(top_file)
wait_rows $OUT/r.tsv.$top 3
kill -TERM $kpid
wait_pid $kpid $WAIT_S
check "retain: ksnapd exits 0 on SIGTERM" 0 $?
echo 0 > $KSNAP_SYS/enable

left=$(ls $OUT | grep -c '^r\.tsv\(\.[0-9]*\)\{0,1\}$')
info "retain: $top files written, $left left: $(ls -l $OUT | awk 'NR > 1 { printf "%s %s; ", $9, $5 }')"
check "retain: files were written for $SETS sets" yes \
	"$([ "${top:-0}" -ge $SETS ] && echo yes || echo "no ($top)")"
check "retain: fewer files are left than were written" yes \
	"$([ "$left" -lt "${top:-0}" ] && echo yes || echo "no ($left of $top)")"
said=$(sed -n 's/.*: removed the \([0-9]*\) oldest closed file.*/\1/p' /out/retain.err |
	awk '{ s += $1 } END { print s + 0 }')
check "retain: ksnapd's messages count every file removed" "$((top - left))" "$said"
closed=$(ls -l $OUT | awk -v cur="r.tsv.$top" '$9 ~ /^r\.tsv/ && $9 != cur { s += $5 } END { print s + 0 }')
check "retain: the closed files left are within --output-max-size $CAP ($CAP_BYTES bytes)" yes \
	"$([ "$closed" -le $CAP_BYTES ] && echo yes || echo "no ($closed bytes)")"
stat_of() { # FILE KEY: KEY of FILE's last STATS line
	grep 'STATS	' "$1" | tail -n 1 | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p"
}
counted=0 bytes=0
for f in $(ls $OUT | grep '^r\.tsv'); do
	n=$(stat_of $OUT/$f ksnapd_files_removed)
	b=$(stat_of $OUT/$f ksnapd_bytes_removed)
	counted=$((counted + ${n:-0})) bytes=$((bytes + ${b:-0}))
done
info "retain: the STATS of the files left count $counted files, $bytes bytes removed"
check "retain: the STATS of the files left count files removed, no more than are missing" yes \
	"$([ $counted -ge 1 ] && [ $counted -le $((top - left)) ] && echo yes || echo "no ($counted of $((top - left)))")"
check "retain: and the bytes they held" yes \
	"$([ $bytes -gt 0 ] && echo yes || echo "no ($bytes)")"
ksnap-verify $OUT/r.tsv > /out/retain.verify 2>&1
check_st "retain: ksnap-verify checks the files left as one sequence" 0 $? /out/retain.verify

# A second run on the same FILE, the collection stopped in between: it
# truncates nothing, and moves the first run's files aside whole, FILE
# to FILE.old.1 and FILE.N to FILE.old.1.N.
(cd $OUT && md5sum r.tsv*) | sed 's/ r\.tsv/ r.tsv.old.1/' | sort > /tmp/retain.before
ksnapd --start -o $OUT/r.tsv --output-max-size 0 2> /out/retain2.err &
kpid=$!
wait_rows $OUT/r.tsv 3
kill -TERM $kpid
wait_pid $kpid $WAIT_S
check "retain: a second run exits 0 on SIGTERM" 0 $?
echo 0 > $KSNAP_SYS/enable
(cd $OUT && md5sum r.tsv.old.1*) | sort > /tmp/retain.after
check "retain: the second run moved the first run's $(wc -l < /tmp/retain.before) files aside whole, as FILE.old.1..." \
	"$(cat /tmp/retain.before)" "$(cat /tmp/retain.after)"
check "retain: and said so" yes \
	"$(grep -q 'aside' /out/retain2.err && echo yes || echo "no: $(head -c 300 /out/retain2.err)")"
ksnap-verify $OUT/r.tsv.old.1 > /out/retain-old.verify 2>&1
check_st "retain: the first run's files moved aside still check as one sequence" 0 $? /out/retain-old.verify
ksnap-verify $OUT/r.tsv > /out/retain2.verify 2>&1
check_st "retain: the second run's FILE checks on its own" 0 $? /out/retain2.verify

rmdir $CG/rt-*
finish
