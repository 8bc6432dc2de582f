# SPDX-License-Identifier: MIT
# bench/results/latest.raw -> markdown (scripts/bench).  Every line is
# key=value words; "kind" says what it is.  A line "kernel=NAME" starts the
# part of the run on that kernel: what follows, up to the next such line,
# was measured in guests on it (the writer's lines come before any).
function kv(   i, p) {
	delete F
	for (i = 1; i <= NF; i++) {
		p = index($i, "=")
		if (p)
			F[substr($i, 1, p - 1)] = substr($i, p + 1)
	}
}
function ratio(a, b) { return (b > 0 && a != "") ? sprintf("%.1f", a / b) : "-" }
function ratio2(a, b) { return (b > 0 && a != "" && a >= 0) ? sprintf("%.2f", a / b) : "-" }
function us(ns) { return ns == "" ? "-" : sprintf("%.1f", ns / 1000) }
function f1(x) { return x == "" ? "-" : sprintf("%.1f", x) }
function per_col(x) { return x == "" ? "-" : sprintf("%.1f", x / 16) }
function f0(x) { return x == "" ? "-" : sprintf("%.0f", x) }
# CPU share (%) an idle spinner lost against its baseline rate.
function loss(rate, b) {
	if (rate == "" || b == "" || b <= 0)
		return ""
	return 100 * (1 - rate / b)
}
function cpu(rate) { return f1(loss(rate, base)) }
# The median of A[1..n] (sorted in place); "" when n is 0.
function med(A, n,   i, j, t) {
	if (n < 1)
		return ""
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && A[j - 1] + 0 > A[j] + 0; j--) {
			t = A[j]; A[j] = A[j - 1]; A[j - 1] = t
		}
	return n % 2 ? A[(n + 1) / 2] : (A[n / 2] + A[n / 2 + 1]) / 2
}
# Records a ring_kb ring holds at cols columns (kmod/ring.c: a power of
# two), and the wake mark (ksnap_ring_wake_mark()).
function nr_records(kb, cols,   fit, n) {
	fit = int(kb * 1024 / (32 + 8 * cols))
	for (n = 1; n * 2 <= fit; n *= 2)
		;
	return n
}
function wake_mark(nr, period_us, wake_ms,   m) {
	m = int(wake_ms * 1000 / period_us)
	if (nr / 4 < m)
		m = nr / 4
	return m < 1 ? 1 : m
}

/^kernel=/ { K = substr($0, 8); NK++; KL[NK] = K; next }
/^config / {
	kv()
	if ("set" in F)
		CONF[K, F["set"]] = F["metrics"]
	else
		CONF[K, "cols" F["cols"]] = F["metrics"] (F["cgroups"] != "" ? " cgroups=" F["cgroups"] : "")
	next
}
/^[a-z_]+=/ && !/kind=/ {
	# machine description: one key=value per line (values may have spaces)
	p = index($0, "=")
	# bench_wall_s closes the whole run, after the last kernel's part.
	if (K == "" || $0 ~ /^bench_wall_s=/)
		M[substr($0, 1, p - 1)] = substr($0, p + 1)
	else
		MK[K, substr($0, 1, p - 1)] = substr($0, p + 1)
	if ($0 ~ /^seconds_per_point=/) kvline = $0
	next
}
/kind=baseline/ {
	kv()
	if (F["block"] == "floor")
		FB[K, F["period_us"], F["rep"]] = F["spin_rate"]
	else if (F["block"] == "pipe")
		PB[K, F["period_us"]] = F["spin_rate"]
	else {
		NB[K]++; BS[K] += F["spin_rate"]; BR[K, NB[K]] = F["spin_rate"]
	}
	next
}
/kind=floor / || (/kind=ksnap / && /block=floor/) {
	kv()
	p = F["period_us"]; r = F["rep"]
	if (!((K, p) in FSEEN)) { FSEEN[K, p] = 1; FP[K, ++NFP[K]] = p }
	if (r + 0 > FR[K, p] + 0) FR[K, p] = r
	for (f in F) FD[K, F["kind"], p, r, f] = F[f]
	next
}
/kind=ksnap / || /kind=poller / {
	kv()
	k = F["cols_req"] SUBSEP F["period_us"]
	if (!((K, k) in SEEN)) { SEEN[K, k] = 1; order[K, ++nk[K]] = k }
	for (f in F) D[K, F["kind"], k, f] = F[f]
	if (F["kind"] == "ksnap" && F["read_mean"] != "") {
		x = F["cols"]; LN[K]++; LX[K] += x; LXX[K] += x * x
		LY[K] += F["read_mean"]; LXY[K] += x * F["read_mean"]
		LM[K] += F["read_p50"]; LXM[K] += x * F["read_p50"]
	}
	next
}
/kind=pipe / {
	kv()
	p = F["period_us"]
	if (!((K, p) in PSEEN)) { PSEEN[K, p] = 1; PP[K, ++NPP[K]] = p }
	for (f in F) PD[K, p, f] = F[f]
	next
}
/kind=pipe_end / { kv(); for (f in F) PE[K, F["period_us"], f] = F[f]; next }
/kind=scale_guest / { kv(); NSG[K]++; SG[K, NSG[K]] = F["smp"] " (exit " F["status"] ", " F["wall_s"] " s)"; next }
/kind=scale / {
	kv()
	c = F["online"] "/" F["possible"]
	if (!((K, c) in CSEEN)) { CSEEN[K, c] = 1; SC[K, ++NSC[K]] = c; SON[K, c] = F["online"] }
	s = F["set"]
	if ("error" in F) { SERR[K, c, s] = F["error"]; next }
	n = ++SN[K, c, s]
	SRM[K, c, s, n] = F["taken"] > 0 ? F["read_sum_ns"] / F["taken"] : ""
	SLOST[K, c, s] += F["lost"]
	SLINES[K, c, s] = F["lines_per_cpu"] * F["live"] + F["single"]
	SLPC[K, c, s] = F["lines_per_cpu"]
	SLIVE[K, c, s] = F["live"]
	SCOLS[K, c, s] = F["cols"]
	next
}
/kind=e2e/ { NE[K]++; E[K, NE[K]] = $0; next }
/kind=writer/ { kv(); nw++; for (f in F) W[nw, f] = F[f]; next }
/kind=bound/ { kv(); BND[F["what"]] = F["MB_per_s"]; next }

# --- Figures derived per kernel, for the goals and the tables ---------------
# Floor: medians over the repetitions; ratios of the medians.
function floor_figures(K,   i, p, r, n, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, b) {
	for (i = 1; i <= NFP[K]; i++) {
		p = FP[K, i]
		n = 0
		delete A1; delete A2; delete A3; delete A4; delete A5; delete A6
		delete A7; delete A8; delete A9; delete A10; delete A11
		for (r = 1; r <= FR[K, p]; r++) {
			if (FD[K, "floor", p, r, "late_p50"] == "" || FD[K, "ksnap", p, r, "late_p50"] == "")
				continue
			n++
			b = FB[K, p, r]
			A1[n] = FD[K, "floor", p, r, "late_p50"]; A2[n] = FD[K, "ksnap", p, r, "late_p50"]
			A3[n] = FD[K, "floor", p, r, "late_p99"]; A4[n] = FD[K, "ksnap", p, r, "late_p99"]
			A5[n] = loss(FD[K, "floor", p, r, "spin_rate"], b)
			A6[n] = loss(FD[K, "ksnap", p, r, "spin_rate"], b)
			A7[n] = FD[K, "floor", p, r, "capture_pct"]; A8[n] = FD[K, "ksnap", p, r, "capture_pct"]
			A9[n] = FD[K, "floor", p, r, "late_max"]; A10[n] = FD[K, "ksnap", p, r, "late_max"]
			A11[n] = FD[K, "ksnap", p, r, "read_mean"]
		}
		FN[K, p] = n
		FM[K, p, "fp50"] = med(A1, n); FM[K, p, "kp50"] = med(A2, n)
		FM[K, p, "fp99"] = med(A3, n); FM[K, p, "kp99"] = med(A4, n)
		FM[K, p, "fcpu"] = med(A5, n); FM[K, p, "kcpu"] = med(A6, n)
		FM[K, p, "fcap"] = med(A7, n); FM[K, p, "kcap"] = med(A8, n)
		FM[K, p, "fmax"] = med(A9, n); FM[K, p, "kmax"] = med(A10, n)
		FM[K, p, "kread"] = med(A11, n)
	}
}
# Scale: the median of each configuration's mean read times.
function scale_figures(K,   i, c, s, n, A, j, sx, sy, sxx, sxy, x, y, m) {
	for (i = 1; i <= NSC[K]; i++) {
		c = SC[K, i]
		for (s in SETS) {
			n = SN[K, c, s]
			delete A
			for (j = 1; j <= n; j++) A[j] = SRM[K, c, s, j]
			SR[K, c, s] = med(A, n)
		}
	}
	for (s in SETS) {
		m = 0; sx = sy = sxx = sxy = 0
		for (i = 1; i <= NSC[K]; i++) {
			c = SC[K, i]
			split(c, cc, "/")
			if (cc[1] != cc[2] || SR[K, c, s] == "")
				continue
			x = cc[1]; y = SR[K, c, s]
			m++; sx += x; sy += y; sxx += x * x; sxy += x * y
		}
		SLOPE[K, s] = (m >= 2 && m * sxx - sx * sx > 0) ? (m * sxy - sx * sy) / (m * sxx - sx * sx) : ""
		SLOPEN[K, s] = m
	}
}
# Pipeline: per-second figures of each period.
function pipe_figures(K,   i, p, w) {
	for (i = 1; i <= NPP[K]; i++) {
		p = PP[K, i]
		w = PD[K, p, "wall_ns"] / 1e9
		if (w <= 0)
			continue
		PF[K, p, "rate"] = 1e6 / p
		PF[K, p, "capture"] = 100 * PD[K, p, "taken"] / (w * 1e6 / p)
		PF[K, p, "taken_s"] = PD[K, p, "taken"] / w
		PF[K, p, "kd_ms"] = PD[K, p, "ksnapd_cpu_ns"] / w / 1e6
		PF[K, p, "kd_ru_ms"] = PD[K, p, "clk_tck"] > 0 ? PD[K, p, "ksnapd_ticks"] / PD[K, p, "clk_tck"] / w * 1000 : ""
		PF[K, p, "kd_wake"] = PD[K, p, "ksnapd_vcsw"] / w
		PF[K, p, "k_wake"] = PD[K, p, "wakeups"] / w
		PF[K, p, "per_wake"] = PD[K, p, "wakeups"] > 0 ? PD[K, p, "taken"] / PD[K, p, "wakeups"] : ""
		PF[K, p, "kd_row_us"] = PD[K, p, "taken"] > 0 ? PD[K, p, "ksnapd_cpu_ns"] / PD[K, p, "taken"] / 1000 : ""
		PF[K, p, "smp_ms"] = loss(PD[K, p, "spin_rate"], PB[K, p]) == "" ? "" : 10 * loss(PD[K, p, "spin_rate"], PB[K, p])
		PF[K, p, "read_ms"] = PD[K, p, "read_sum_ns"] / w / 1e6
		PF[K, p, "late_us"] = PD[K, p, "taken"] > 0 ? PD[K, p, "lateness_sum_ns"] / PD[K, p, "taken"] / 1000 : ""
		PF[K, p, "mark"] = wake_mark(nr_records(PD[K, p, "ring_kb"], PD[K, p, "cols"]), p, PD[K, p, "wake_ms"])
		PF[K, p, "nr"] = nr_records(PD[K, p, "ring_kb"], PD[K, p, "cols"])
	}
}

END {
	SETS["summed"] = 1; SETS["direct"] = 1; SETS["global"] = 1; SETS["cgusage"] = 1
	n = split(kvline, kvw, " ")
	for (i = 1; i <= n; i++) {
		p = index(kvw[i], "=")
		KVL[substr(kvw[i], 1, p - 1)] = substr(kvw[i], p + 1)
	}
	# The reference: a reader that walks every possible CPU, 16 summed
	# columns, mean read per snapshot, ns; quoted, not measured.
	OLD["2/2"] = 3900; OLD["8/8"] = 9600; OLD["16/16"] = 16000
	OLD["2/32"] = 22400; OLD["2/128"] = 285600
	for (i = 1; i <= NK; i++) {
		floor_figures(KL[i]); scale_figures(KL[i]); pipe_figures(KL[i])
	}

	print "# ksnap bench: latest results"
	print ""
	printf "Run %s (%s)%s.  Bench wall time %s s.\n\n", M["date"], M["git"], M["quick"] == 1 ? ", **a --quick smoke run: its figures are not meant to be published**" : "", M["bench_wall_s"]
	if ("command" in M)
		printf "Command: `%s`.\n\n", M["command"]
	print "## Machine"
	print ""
	printf "- Host: %s CPUs, %s, %s MiB RAM, Linux %s.  Load average %s at the start; qemu processes running %s at the start (other guests on the host compete with ours for its CPUs).\n", M["host_nproc"], M["host_cpu"], M["host_mem_mb"], M["host_kernel"], M["host_loadavg"], M["host_qemu_procs"]
	for (i = 1; i <= NK; i++) {
		K = KL[i]
		printf "- Kernel %s: %s under %s (TCG, software emulation); the sampler guest: %s vCPUs, %d MiB, clocksource %s, hrtimer resolution %s, %s s (exit %s); load average %s after it, qemu processes %s.", K, MK[K, "guest_kernel"], M["qemu"], MK[K, "guest_nproc"], MK[K, "guest_mem_kb"] / 1024, MK[K, "guest_clocksource"], MK[K, "guest_hrtimer_res"], MK[K, "guest_wall_s"], MK[K, "guest_status"], MK[K, "host_loadavg_end"], MK[K, "host_qemu_procs_end"]
		printf "  Scale guests (-smp): "
		for (j = 1; j <= NSG[K]; j++)
			printf "%s%s", (j > 1 ? ", " : ""), SG[K, j]
		printf "; %s s in all.\n", MK[K, "scale_wall_s"]
	}
	printf "- %s, zlib %s; %s.\n", M["cc"], M["zlib"], kvline
	print ""
	print "**Every guest runs under software emulation (qemu TCG): absolute times"
	print "are those of an emulated CPU, many times slower than hardware, and noisy"
	print "(host-side scheduling of the vCPU threads).  Compare figures by their"
	print "ratios within one run, not across runs or with hardware.**"
	print ""

	# --- Goals ---------------------------------------------------------------
	print "## Goals"
	print ""
	printf "| goal | target |"
	for (i = 1; i <= NK; i++) printf " %s |", KL[i]
	printf "\n|---|---|"
	for (i = 1; i <= NK; i++) printf "---|"
	print ""
	goal_row("Floor: lateness p50, ksnap / floor, 16 columns, 100 µs", "≤ 1.2×", "fp50", 1.2, "le")
	goal_row("Floor: lateness p99, ksnap / floor, 16 columns, 100 µs", "≤ 1.2×", "fp99", 1.2, "le")
	goal_row("Floor: CPU, ksnap / floor, 16 columns, 100 µs", "≤ 1.5×", "fcpu", 1.5, "le")
	goal_row("Scale: read per snapshot, 2 online of 128 / 2 of 2, 16 summed columns", "≤ 1.3×", "s128", 1.3, "le")
	goal_row("Scale: the same, 16 summed columns read straight from per-CPU arrays (no cpu.idle, cpu.iowait)", "≤ 1.3×", "d128", 1.3, "le")
	goal_row("Scale: the same, 16 global columns", "≤ 1.3×", "g128", 1.3, "le")
	goal_row("Scale: cost per online CPU at 16 of 16, 16 summed columns: the every-possible-CPU reference (16.0 µs / 16 CPUs, quoted) / now", "≥ 3×", "s16", 3, "ge")
	goal_row("Scale: the same, against the 16 summed columns read straight from per-CPU arrays", "≥ 3×", "d16", 3, "ge")
	goal_row("Pipeline: ksnapd's CPU / the sampler's CPU, 10 kHz, 16 columns", "< 1×", "pipe", 1, "lt")
	print ""

	for (i = 1; i <= NK; i++)
		kernel_tables(KL[i])
	writer_table()
}

# One goal: its ratio on each kernel, and whether it meets lim (mode le:
# ratio <= lim, ge: ratio >= lim, lt: ratio < lim).
function goal_row(what, target, g, lim, mode,   i, K, x, p, v) {
	printf "| %s | %s |", what, target
	for (i = 1; i <= NK; i++) {
		K = KL[i]
		x = ""
		p = 100
		if (g == "fp50" && FN[K, p]) x = ratio2(FM[K, p, "kp50"], FM[K, p, "fp50"])
		if (g == "fp99" && FN[K, p]) x = ratio2(FM[K, p, "kp99"], FM[K, p, "fp99"])
		if (g == "fcpu" && FN[K, p]) x = ratio2(FM[K, p, "kcpu"], FM[K, p, "fcpu"])
		if (g == "s128") x = ratio2(SR[K, "2/128", "summed"], SR[K, "2/2", "summed"])
		if (g == "d128") x = ratio2(SR[K, "2/128", "direct"], SR[K, "2/2", "direct"])
		if (g == "g128") x = ratio2(SR[K, "2/128", "global"], SR[K, "2/2", "global"])
		if (g == "s16" && SR[K, "16/16", "summed"] != "") x = ratio2(OLD["16/16"] / 16, SR[K, "16/16", "summed"] / 16)
		if (g == "d16" && SR[K, "16/16", "direct"] != "") x = ratio2(OLD["16/16"] / 16, SR[K, "16/16", "direct"] / 16)
		if (g == "pipe" && PF[K, 100, "smp_ms"] != "") x = ratio2(PF[K, 100, "kd_ms"], PF[K, 100, "smp_ms"])
		if (x == "-" || x == "") {
			printf " not measured |"
			continue
		}
		if (mode == "le") v = x + 0 <= lim
		else if (mode == "ge") v = x + 0 >= lim
		else v = x + 0 < lim
		printf " %s× (%s) |", x, v ? "met" : "**missed**"
	}
	print ""
}

function kernel_tables(K,   i, j, p, k, kk, c, b, bm, a, am, n, s, online, slopes) {
	base = NB[K] ? BS[K] / NB[K] : 0
	printf "## Kernel %s (%s)\n\n", K, MK[K, "guest_kernel"]

	# --- Floor ---------------------------------------------------------------
	printf "### Floor: ksnap against an empty hrtimer (guest, %s)\n\n", K
	print "The floor is bench/floor/ksnap_floor.ko: a hard-irq hrtimer armed as"
	print "ksnap's (HRTIMER_MODE_ABS_PINNED_HARD from its CPU, hrtimer_forward())"
	print "whose callback only records its lateness.  Each repetition runs, on"
	print "CPU 0 of the same guest: the idle spinner alone (the repetition's"
	print "baseline), the floor with the spinner, then ksnap at 16 columns"
	print "(bench/ringstat.c draining from CPU 1) with the spinner, for the same"
	print "time.  Lateness = callback start - expiry, per expiry (floor) and per"
	print "record (ksnap's `lateness_ns`); CPU = the share of CPU 0 the spinner"
	print "lost.  Medians over the repetitions; (×) = ksnap / floor of the medians,"
	print "the excess ksnap itself causes.  Times in µs."
	print ""
	print "| period µs | reps | capture % f / k | late p50 f / k (×) | late p99 f / k (×) | late max f / k | CPU % f / k (×) | ksnap read mean |"
	print "|---:|---:|---|---|---|---|---|---:|"
	for (i = 1; i <= NFP[K]; i++) {
		p = FP[K, i]
		printf "| %s | %s | %s / %s | %s / %s (%s) | %s / %s (%s) | %s / %s | %s / %s (%s) | %s |\n", p, FN[K, p], \
			f1(FM[K, p, "fcap"]), f1(FM[K, p, "kcap"]), \
			us(FM[K, p, "fp50"]), us(FM[K, p, "kp50"]), ratio2(FM[K, p, "kp50"], FM[K, p, "fp50"]), \
			us(FM[K, p, "fp99"]), us(FM[K, p, "kp99"]), ratio2(FM[K, p, "kp99"], FM[K, p, "fp99"]), \
			us(FM[K, p, "fmax"]), us(FM[K, p, "kmax"]), \
			f1(FM[K, p, "fcpu"]), f1(FM[K, p, "kcpu"]), ratio2(FM[K, p, "kcpu"], FM[K, p, "fcpu"]), \
			us(FM[K, p, "kread"])
	}
	print ""
	printf "Columns: %s.\n\n", CONF[K, "cols16"]

	# --- Scale ---------------------------------------------------------------
	printf "### Scale: read cost per snapshot by CPU count (guest, %s)\n\n", K
	print "One guest per CPU count (qemu `-smp N`, or `-smp 2,maxcpus=N`: 2 online"
	print "of N possible, as large VMs look).  Three sets of 16 columns: summed (12"
	print "VM events and cpu.user, cpu.system, cpu.idle, cpu.iowait, read CPU by"
	print "CPU; idle and iowait come from the kernel's NOHZ idle accounting, which"
	print "reads the clock for each CPU), direct (the same VM events and four CPU"
	print "times read straight from per-CPU arrays) and global (zone and node"
	print "state, read once); and cgusage, cpu.stat.usage of 16 empty leaf cgroups"
	print "(each a walk over the CPUs the sampler reads live: the online ones)."
	printf "Each is sampled at 1 ms for %s s, %s times, with no\n", KVL["scale_seconds"], KVL["scale_reps"]
	print "reader, started from CPU 0; read = `read_sum_ns / taken` of `stats`,"
	print "the median of the runs.  Cache lines per snapshot ="
	print "`cache_lines_per_cpu` (plan) × live CPUs + one per global column; per"
	print "online CPU = read / online CPUs.  The last column is the reference"
	print "figure of a reader that walks every possible CPU (quoted, not"
	print "measured in this run)."
	print ""
	print "| online / possible | summed: read µs | per online CPU ns | cache lines | direct: read µs | per online CPU ns | cache lines | global: read µs | cache lines | cgusage: read µs | reference: summed read µs |"
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= NSC[K]; i++) {
		c = SC[K, i]
		online = SON[K, c]
		printf "| %s |", c
		for (j = 1; j <= 3; j++) {
			s = j == 1 ? "summed" : j == 2 ? "direct" : "global"
			if (SERR[K, c, s] != "")
				printf " error: %s |", SERR[K, c, s]
			else
				printf " %s |", us(SR[K, c, s])
			if (s != "global")
				printf " %s |", SR[K, c, s] == "" ? "-" : f0(SR[K, c, s] / online)
			printf " %s |", SLINES[K, c, s] == "" ? "-" : SLINES[K, c, s]
		}
		s = "cgusage"
		if (SERR[K, c, s] != "")
			printf " error: %s |", SERR[K, c, s]
		else
			printf " %s |", us(SR[K, c, s])
		printf " %s |\n", (c in OLD) ? sprintf("%.1f", OLD[c] / 1000) : "-"
	}
	print ""
	for (s in SETS)
		if (SLOPE[K, s] != "")
			slopes = 1
	if (slopes) {
		printf "ns per column per online CPU (least-squares slope of read over online CPUs, %d points of online = possible, / 16 columns): summed **%s**, direct %s, global %s.  ", SLOPEN[K, "summed"], per_col(SLOPE[K, "summed"]), per_col(SLOPE[K, "direct"]), per_col(SLOPE[K, "global"])
		printf "The reference, by the same fit of its quoted 2/2, 8/8, 16/16 figures: 53.8.\n\n"
	}
	printf "Summed: %s.  Direct: %s.  Global: %s.\n\n", CONF[K, "summed"], CONF[K, "direct"], CONF[K, "global"]

	# --- Pipeline ------------------------------------------------------------
	printf "### Pipeline: ksnap.ko + ksnapd, 16 columns (guest, %s)\n\n", K
	print "ksnapd (plain, to a file in the guest's tmpfs) on CPU 1, the timer on"
	print "CPU 0; bench/pipestat.c measures a window of the running collection."
	print "ksnapd CPU = its CPU time per second of wall time (/proc/PID/schedstat;"
	print "getrusage's ticks in brackets), its wake-ups = its voluntary context"
	print "switches (each one sleep in poll()) per second, the kernel's = `wakeups`"
	print "of `stats` per second.  The sampler's CPU = the share of CPU 0 an idle"
	print "spinner lost against its baseline just before (the timer's interrupt,"
	print "the reads, the wake-ups), as ms per second; read = `read_sum_ns` per"
	print "second (the reads alone).  Wake mark = the unread records that wake"
	print "ksnapd: min(wake_ms of records, a quarter of the ring)."
	print ""
	print "| rate | capture % | snapshots/s | ksnapd CPU ms/s | ksnapd µs/row | ksnapd wake-ups/s | kernel wake-ups/s | rows/wake-up | wake mark (bound) | sampler CPU ms/s | read ms/s | lateness mean µs | ksnapd / sampler |"
	print "|---:|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"
	for (i = 1; i <= NPP[K]; i++) {
		p = PP[K, i]
		if (PD[K, p, "error"] != "") {
			printf "| %s kHz | error: %s |||||||||||\n", 1000 / p, PD[K, p, "error"]
			continue
		}
		printf "| %s kHz | %s | %s | %s (%s) | %s | %s | %s | %s | %s (%s ms) | %s | %s | %s | %s |\n", \
			1000 / p, f1(PF[K, p, "capture"]), f0(PF[K, p, "taken_s"]), \
			f1(PF[K, p, "kd_ms"]), f1(PF[K, p, "kd_ru_ms"]), \
			f1(PF[K, p, "kd_row_us"]), f1(PF[K, p, "kd_wake"]), f1(PF[K, p, "k_wake"]), \
			f0(PF[K, p, "per_wake"]), PF[K, p, "mark"], PF[K, p, "mark"] * p / 1000, \
			f1(PF[K, p, "smp_ms"]), f1(PF[K, p, "read_ms"]), f1(PF[K, p, "late_us"]), \
			ratio2(PF[K, p, "kd_ms"], PF[K, p, "smp_ms"])
	}
	print ""
	if (NPP[K]) {
		p = PP[K, 1]
		printf "Window %s s per rate; wake_ms=%s, ring %s KiB (%s records of 16 columns).  ", PD[K, p, "wall_ns"] / 1e9 == "" ? "-" : sprintf("%.1f", PD[K, p, "wall_ns"] / 1e9), PD[K, p, "wake_ms"], PD[K, p, "ring_kb"], PF[K, p, "nr"]
		print "The batching: the module wakes ksnapd once the unread records reach"
		print "the wake mark, so ksnapd wakes about rate / mark times a second and"
		print "drains a batch each time; a record waits at most the mark's time"
		print "(the bound in brackets, at full capture) before ksnapd is woken, plus"
		print "ksnapd's drain.  Under emulation the timer misses periods, so batches"
		print "fill more slowly than the nominal rate.\n"
	}

	# --- Sampler vs poller ---------------------------------------------------
	printf "### Sampler (guest, %s): ksnap against a userspace poller, same guest, same run\n\n", K
	print "ksnap: hrtimer pinned to CPU 0, ring drained from CPU 1 (bench/ringstat.c,"
	print "ksnapd's ring code); lateness and read time are the per-record"
	print "`lateness_ns` and `read_ns`.  Poller: SCHED_OTHER on CPU 0, timer slack"
	print "1 ns, clock_nanosleep(TIMER_ABSTIME), pread() of /proc/vmstat, /proc/stat"
	print "and one memory.current per cgroup, parsed (bench/poller.c); lateness ="
	print "wake-up - deadline, read = read and parse.  Capture = snapshots /"
	print "periods elapsed (missed periods are skipped, as hrtimer_forward does).  CPU ="
	print "share of CPU 0 lost by an idle-priority spinner there, against the spinner"
	printf "alone (%d baselines, %.0f it/s at the start and %.0f at the end; their mean is used): includes interrupt\n", NB[K], BR[K, 1], BR[K, NB[K]]
	print "entry/exit and timer reprogramming for ksnap, wake-ups, syscalls and"
	print "parsing for the poller; the ring reader on CPU 1 is not in it (its own"
	print "CPU is `reader_pct` in the raw file).  Times in µs."
	print ""
	print "| cols | period µs | capture % k / p | lost k | missed k / p | late p50 k / p (×) | late p99 k / p (×) | late max k / p | read mean k / p (×) | read max k / p | CPU % k / p |"
	print "|---:|---:|---|---:|---|---|---|---|---|---|---|"
	for (i = 1; i <= nk[K]; i++) {
		k = order[K, i]
		split(k, kk, SUBSEP)
		printf "| %s | %s | %s / %s | %s | %s / %s | %s / %s (%s) | %s / %s (%s) | %s / %s | %s / %s (%s) | %s / %s | %s / %s |\n", \
			D[K, "ksnap", k, "cols"] ? D[K, "ksnap", k, "cols"] : kk[1], kk[2], \
			D[K, "ksnap", k, "capture_pct"], D[K, "poller", k, "capture_pct"], \
			D[K, "ksnap", k, "lost"], D[K, "ksnap", k, "missed"], D[K, "poller", k, "missed"], \
			us(D[K, "ksnap", k, "late_p50"]), us(D[K, "poller", k, "late_p50"]), ratio(D[K, "poller", k, "late_p50"], D[K, "ksnap", k, "late_p50"]), \
			us(D[K, "ksnap", k, "late_p99"]), us(D[K, "poller", k, "late_p99"]), ratio(D[K, "poller", k, "late_p99"], D[K, "ksnap", k, "late_p99"]), \
			us(D[K, "ksnap", k, "late_max"]), us(D[K, "poller", k, "late_max"]), \
			us(D[K, "ksnap", k, "read_mean"]), us(D[K, "poller", k, "read_mean"]), ratio(D[K, "poller", k, "read_mean"], D[K, "ksnap", k, "read_mean"]), \
			us(D[K, "ksnap", k, "read_max"]), us(D[K, "poller", k, "read_max"]), \
			cpu(D[K, "ksnap", k, "spin_rate"]), cpu(D[K, "poller", k, "spin_rate"])
	}
	print ""
	n = LN[K]
	if (n >= 2 && n * LXX[K] - LX[K] * LX[K] > 0) {
		b = (n * LXY[K] - LX[K] * LY[K]) / (n * LXX[K] - LX[K] * LX[K]); a = (LY[K] - b * LX[K]) / n
		bm = (n * LXM[K] - LX[K] * LM[K]) / (n * LXX[K] - LX[K] * LX[K]); am = (LM[K] - bm * LX[K]) / n
		printf "Timer callback's read cost per column (least squares over the %d ksnap points, guest/TCG ns): mean read_ns = %.0f + %.1f × columns; median read_ns = %.0f + %.1f × columns.\n\n", n, a, b, am, bm
	}

	# --- End to end ----------------------------------------------------------
	printf "### End to end (guest, %s): ksnap.ko + ksnapd --lossy to a file, 16 columns\n\n", K
	print "Periods tried from the longest down, each for the full time unless a"
	print "snapshot is lost (ring full: ksnapd did not keep up), which ends the run"
	print "and the search.  Missed periods (hrtimer overruns: under TCG the emulated"
	print "timer cannot deliver every short period) are shown with the capture"
	print "(taken / (taken + missed)), not counted as lost."
	print ""
	print "| period µs | sustained s | nothing lost | taken | lost | missed | capture % | ksnapd exit | ksnap-verify exit | stream bytes |"
	print "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"
	best = ""; bestc = ""
	for (i = 1; i <= NE[K]; i++) {
		$0 = E[K, i]; kv()
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
}

function writer_table(   i) {
	print "## Writer (native): ksnapd's formatting path from a ring in a memfd"
	print ""
	print "ksnapd_step() (ring walk, row formatting, lossy per-line and whole-stream"
	print "Adler-32, flush, and on a file in lossy mode fsync) over a ring laid out as"
	print "the device's in a memfd, opened as --device opens a file; the generator"
	print "fills the ring between timed steps (65536 rows per step; ksnapd on the device"
	print "drains every wake-up: wake_ms, 100 ms by default, or a quarter ring, and flushes, with fsync in lossy mode"
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
