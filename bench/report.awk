# bench/results/latest.raw -> markdown (scripts/bench).  Every line is
# key=value words; "kind" says what it is.
function kv(   i, p) {
	delete F
	for (i = 1; i <= NF; i++) {
		p = index($i, "=")
		if (p)
			F[substr($i, 1, p - 1)] = substr($i, p + 1)
	}
}
function ratio(a, b) { return (b > 0 && a != "") ? sprintf("%.1f", a / b) : "-" }
function us(ns) { return ns == "" ? "-" : sprintf("%.1f", ns / 1000) }
function cpu(rate) {
	if (rate == "" || base <= 0)
		return "-"
	return sprintf("%.1f", 100 * (1 - rate / base))
}
/^[a-z_]+=/ && !/kind=/ && !/^config/ {
	# machine description: one key=value per line (values may have spaces)
	p = index($0, "=")
	M[substr($0, 1, p - 1)] = substr($0, p + 1)
	if ($0 ~ /^seconds_per_point=/) kvline = $0
}
/kind=baseline/ { kv(); nb++; bsum += F["spin_rate"]; B[nb] = F["spin_rate"] }
/kind=ksnap/ || /kind=poller/ {
	kv()
	k = F["cols_req"] SUBSEP F["period_us"]
	if (!(k in SEEN)) { SEEN[k] = 1; order[++nk] = k }
	for (f in F) D[F["kind"], k, f] = F[f]
	if (F["kind"] == "ksnap" && F["read_mean"] != "") {
		n++; x = F["cols"]; sx += x; sxx += x * x
		sy += F["read_mean"]; sxy += x * F["read_mean"]
		sm += F["read_p50"]; sxm += x * F["read_p50"]
	}
}
/kind=writer/ { kv(); nw++; for (f in F) W[nw, f] = F[f] }
/kind=bound/ { kv(); BND[F["what"]] = F["MB_per_s"] }
/kind=e2e/ { ne++; E[ne] = $0 }
END {
	base = nb ? bsum / nb : 0
	print "# ksnap bench: latest results"
	print ""
	printf "Run %s (%s).  Bench wall time %s s (guest part %s s).\n\n", M["date"], M["git"], M["bench_wall_s"], M["guest_wall_s"]
	print "## Machine"
	print ""
	printf "- Host: %s CPUs, %s, %s MiB RAM, Linux %s.  Load average %s at the start, %s after the guest; qemu processes running (ours included) %s at the start, %s after the guest: other guests on the host compete with ours for its CPUs.\n", M["host_nproc"], M["host_cpu"], M["host_mem_mb"], M["host_kernel"], M["host_loadavg"], M["host_loadavg_end"], M["host_qemu_procs"], M["host_qemu_procs_end"]
	printf "- Guest: %s under %s (TCG, software emulation), %s vCPUs, %d MiB, clocksource %s.\n", M["guest_kernel"], M["qemu"], M["guest_nproc"], M["guest_mem_kb"] / 1024, M["guest_clocksource"]
	printf "- %s, zlib %s; %s.\n", M["cc"], M["zlib"], kvline
	print ""
	print "## Sampler (guest): ksnap against a userspace poller, same guest, same run"
	print ""
	print "**The guest runs under software emulation (qemu TCG): absolute times are"
	print "those of an emulated CPU, many times slower than hardware, and noisy"
	print "(host-side scheduling of the vCPU threads).  Compare ksnap and the poller"
	print "by their ratio (poller / ksnap) within this run, not across runs or with"
	print "hardware.**"
	print ""
	print "ksnap: hrtimer pinned to CPU 0, ring drained from CPU 1 (bench/ringstat.c,"
	print "ksnapd's ring code); lateness and read time are the per-record"
	print "`lateness_ns` and `read_ns`.  Poller: SCHED_OTHER on CPU 0, timer slack"
	print "1 ns, clock_nanosleep(TIMER_ABSTIME), pread() of /proc/vmstat, /proc/stat"
	print "and one memory.current per cgroup, parsed (bench/poller.c); lateness ="
	print "wake-up - deadline, read = read and parse.  Capture = snapshots /"
	print "periods elapsed (missed periods are skipped, as hrtimer_forward does).  CPU ="
	print "share of CPU 0 lost by an idle-priority spinner there, against the spinner"
	printf "alone (%d baselines, %.0f it/s at the start and %.0f at the end; their mean is used): includes interrupt\n", nb, B[1], B[nb]
	print "entry/exit and timer reprogramming for ksnap, wake-ups, syscalls and"
	print "parsing for the poller; the ring reader on CPU 1 is not in it (its own"
	print "CPU is `reader_pct` in the raw file).  Times in µs."
	print ""
	print "| cols | period µs | capture % k / p | lost k | missed k / p | late p50 k / p (×) | late p99 k / p (×) | late max k / p | read mean k / p (×) | read max k / p | CPU % k / p |"
	print "|---:|---:|---|---:|---|---|---|---|---|---|---|"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		split(k, kk, SUBSEP)
		printf "| %s | %s | %s / %s | %s | %s / %s | %s / %s (%s) | %s / %s (%s) | %s / %s | %s / %s (%s) | %s / %s | %s / %s |\n", \
			D["ksnap", k, "cols"] ? D["ksnap", k, "cols"] : kk[1], kk[2], \
			D["ksnap", k, "capture_pct"], D["poller", k, "capture_pct"], \
			D["ksnap", k, "lost"], D["ksnap", k, "missed"], D["poller", k, "missed"], \
			us(D["ksnap", k, "late_p50"]), us(D["poller", k, "late_p50"]), ratio(D["poller", k, "late_p50"], D["ksnap", k, "late_p50"]), \
			us(D["ksnap", k, "late_p99"]), us(D["poller", k, "late_p99"]), ratio(D["poller", k, "late_p99"], D["ksnap", k, "late_p99"]), \
			us(D["ksnap", k, "late_max"]), us(D["poller", k, "late_max"]), \
			us(D["ksnap", k, "read_mean"]), us(D["poller", k, "read_mean"]), ratio(D["poller", k, "read_mean"], D["ksnap", k, "read_mean"]), \
			us(D["ksnap", k, "read_max"]), us(D["poller", k, "read_max"]), \
			cpu(D["ksnap", k, "spin_rate"]), cpu(D["poller", k, "spin_rate"])
	}
	print ""
	if (n >= 2 && n * sxx - sx * sx > 0) {
		b = (n * sxy - sx * sy) / (n * sxx - sx * sx); a = (sy - b * sx) / n
		bm = (n * sxm - sx * sm) / (n * sxx - sx * sx); am = (sm - bm * sx) / n
		printf "Timer callback's read cost per column (least squares over the %d ksnap points, guest/TCG ns): mean read_ns = %.0f + %.1f × columns; median read_ns = %.0f + %.1f × columns.\n\n", n, a, b, am, bm
	}
	print "## End to end (guest): ksnap.ko + ksnapd --lossy to a file, 16 columns"
	print ""
	print "Periods tried from the longest down, each for the full time unless a"
	print "snapshot is lost (ring full: ksnapd did not keep up), which ends the run"
	print "and the search.  Missed periods (hrtimer overruns: under TCG the emulated"
	print "timer cannot deliver every short period) are shown with the capture"
	print "(taken / (taken + missed)), not counted as lost."
	print ""
	print "| period µs | sustained s | nothing lost | taken | lost | missed | capture % | ksnapd exit | ksnap-verify exit | stream bytes |"
	print "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"
	best = ""
	for (i = 1; i <= ne; i++) {
		$0 = E[i]; kv()
		capt = F["taken"] + F["missed"] > 0 ? sprintf("%.2f", 100 * F["taken"] / (F["taken"] + F["missed"])) : "-"
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", F["period_us"], F["seconds"], F["ok"] ? "yes" : "no", F["taken"], F["lost"], F["missed"], capt, F["ksnapd_status"], F["verify_status"], F["bytes"]
		if (F["ok"] == 1) { best = F["period_us"]; bs = F["seconds"] }
		if (F["ok"] == 1 && capt != "-" && capt + 0 >= 95) { bestc = F["period_us"]; bcs = F["seconds"] }
	}
	print ""
	if (best != "")
		printf "Shortest period sustained for %s s with nothing lost, ring and writer keeping up (guest, TCG): **%s µs**.\n", bs, best
	else
		print "No period sustained the run with nothing lost."
	# Nothing lost is the ring's and the writer's share; capture is the
	# timer's, and under TCG the emulated timer is what misses periods.
	if (bestc != "")
		printf "Shortest period sustained for %s s with nothing lost and at least 95%% of the periods captured (guest, TCG): **%s µs**.\n\n", bcs, bestc
	else
		print "No period kept 95% of its periods under emulation.\n"
	print "## Writer (native): ksnapd's formatting path from a ring in a memfd"
	print ""
	print "ksnapd_step() (ring walk, row formatting, lossy per-line and whole-stream"
	print "Adler-32, flush, and on a file in lossy mode fsync) over a ring laid out as"
	print "the device's in a memfd, opened as --device opens a file; the generator"
	print "fills the ring between timed steps (65536 rows per step; ksnapd on the device"
	print "drains every 100 ms or quarter ring, and flushes, with fsync in lossy mode"
	print "on a file, at most every 1 MiB: per byte the same fsync rate as here)."
	print "Best of the repetitions (median rows/s in the raw file).  Bounds: memcpy and zlib adler32 over"
	printf "the same bytes in 1 MiB chunks, same run: memcpy %s MB/s, adler32 %s MB/s.\n", BND["memcpy"], BND["adler32"]
	printf "File sink on %s.  allocs = malloc/calloc/realloc calls during the timed steps.\n\n", M["tmp_fs"]
	print "| sink | mode | cols | rows/s | MB/s | ns/row | bytes/row | × memcpy | × adler32 | allocs |"
	print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= nw; i++)
		printf "| %s | %s | %s | %.0f | %.1f | %.1f | %.1f | %.3f | %.2f | %s |\n", W[i, "sink"] == "/dev/null" ? "/dev/null" : "file", W[i, "mode"], W[i, "cols"], W[i, "rows_per_s"], W[i, "MB_per_s"], W[i, "ns_per_row"], W[i, "bytes_per_row"], W[i, "MB_per_s"] / BND["memcpy"], W[i, "MB_per_s"] / BND["adler32"], W[i, "allocs"]
	print ""
	print "Raw figures: bench/results/latest.raw."
}
