# SPDX-License-Identifier: MIT
# Guest half of the reconfiguration test.  A configuration written while
# stopped never relabels a finished collection's records: the new columns
# come as a new, empty collection.  A list (metrics, cgroups) that does not
# fit a page whole is refused whole (E2BIG), and one that fits reads back
# whole.
TEST=reconfig
. /guest/tests/lib.sh
S=$KSNAP_SYS
WAIT_S=${WAIT_S:-30}

# --- a finished collection keeps its columns -------------------------------
unload
modprobe ksnap metrics=pgfault,pgmajfault,nr_free_pages overflow=overwrite \
	period_us=1000
check "a collection starts" ok "$(guestprobe write $S/enable 1)"
wait_samples 200
check "and stops" ok "$(guestprobe write $S/enable 0)"
gen=$(ksnap_stat generation)
ksnapd --slice -10s -o /out/before.tsv 2> /out/before.err
check_st "a slice of the stopped collection: exit 0" 0 $? /out/before.err
check "the slice's header names the columns it was taken with" \
	"Time (ns)	pgfault	pgmajfault	nr_free_pages" \
	"$(grep '^Time (ns)' /out/before.tsv)"

check "metrics written while stopped" ok \
	"$(guestprobe write $S/metrics cpu.user,cpu.system,meminfo.MemTotal)"
check "the new columns come as a new collection" "$((gen + 1))" \
	"$(ksnap_stat generation)"
check "the new collection is empty" "0" "$(ksnap_stat taken)"
ksnapd --slice -10s -o /out/after.tsv 2> /out/after.err
st=$?
show "$(cat /out/after.err)"
check "no row of the finished collection is read under the new columns" 0 \
	"$(rows /out/after.tsv)"
[ $st -ne 0 ] && pass "the slice of the empty collection fails (status $st)" ||
	fail "the slice of the empty collection fails" "a nonzero status" "0"

check "period_us written while stopped" ok "$(guestprobe write $S/period_us 2000)"
check "cgroups written while stopped" ok "$(guestprobe write $S/cgroups '')"
check "each configuration write is a collection of its own" "$((gen + 2))" \
	"$(ksnap_stat generation)"
check "the next collection starts" ok "$(guestprobe write $S/enable 1)"
wait_samples 20
check "and stops" ok "$(guestprobe write $S/enable 0)"
ksnapd --slice -10s -o /out/next.tsv 2> /out/next.err
check_st "a slice of the next collection: exit 0" 0 $? /out/next.err
check "its header names the new columns" \
	"Time (ns)	cpu.user	cpu.system	meminfo.MemTotal" \
	"$(grep '^Time (ns)' /out/next.tsv)"

# --- lists at the page limit -----------------------------------------------
# list_of TAG N: a list of N bytes (60 or more) of existing cgroups,
# /k/TAG<i>000...,... (paths of 103 bytes, the last one cut to fit).
mkdir -p $CG/k
zeros=$(printf '%0200d' 0)
list_of() {
	_l="" _i=0
	while :; do
		_left=$(( $2 - ${#_l} - (${#_l} > 0) ))
		[ $_left -le 159 ] && _len=$_left || _len=103
		_name=$(printf '%s%s_%s' "$1" "$_i" "$zeros" | cut -c1-$((_len - 3)))
		mkdir -p "$CG/k/$_name"
		_l="${_l:+$_l,}/k/$_name"
		_i=$((_i + 1))
		[ $_len -eq $_left ] && break
	done
	printf '%s' "$_l"
}
page=$(getconf PAGESIZE 2>/dev/null || echo 4096)
# A list as "N bytes, md5 C": a failure names that, not the list
# (busybox has md5sum; it has no cksum).
sum_of() {
	echo "$(printf '%s' "$1" | wc -c | tr -d ' ') bytes, md5 $(printf '%s' "$1" | md5sum | cut -d' ' -f1)"
}
knob_sum() { sum_of "$(cat "$1")"; }
fits=$(list_of a $((page - 2)))
check "a list of a page less 2 bytes is made" "$((page - 2))" "${#fits}"
printf '%s\n' "$fits" > /tmp/fits
check "a cgroups list of $((page - 2)) bytes (and its newline) is taken" ok \
	"$(guestprobe write-file $S/cgroups /tmp/fits)"
check "and reads back whole" "$(sum_of "$fits")" "$(knob_sum $S/cgroups)"

over=$(list_of b $((page - 1)))
check "a list of a page less 1 byte is made" "$((page - 1))" "${#over}"
printf '%s' "$over" > /tmp/over
klog_mark
check "a cgroups list of $((page - 1)) bytes is refused" E2BIG \
	"$(guestprobe write-file $S/cgroups /tmp/over)"
check_lines "the kernel log says the list does not fit a page" 1 \
	"does not fit a page" "$(klog_since)"
check "the cgroups are unchanged after the refused list" "$(sum_of "$fits")" "$(knob_sum $S/cgroups)"

# Over a page in one write(): sysfs hands the store the first page, which
# here is a whole list of its own (it ends on a whole path), then the rest.
first=$(list_of c "$page")
rest=$(list_of d 200)
printf '%s,%s\n' "$first" "$rest" > /tmp/big
check "a cgroups list over a page in one write is refused whole" E2BIG \
	"$(guestprobe write-file $S/cgroups /tmp/big)"
check "the cgroups are unchanged after the refused write" "$(sum_of "$fits")" "$(knob_sum $S/cgroups)"
check "a metrics list over a page is refused whole" E2BIG \
	"$(guestprobe write-n $S/metrics a 5000)"
check "the metrics are unchanged" "cpu.user,cpu.system,meminfo.MemTotal" \
	"$(cat $S/metrics)"
finish
