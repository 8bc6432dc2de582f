// SPDX-License-Identifier: GPL-2.0
/*
 * memhog MIB SECONDS: allocate MIB MiB of anonymous memory, write to every
 * page so that all of it is resident (and charged to our memory cgroup: the
 * guest has no swap), say so ("memhog: N MiB resident, ..."), hold it for
 * SECONDS, then exit 0.  SECONDS "-": hold it until SIGTERM or SIGINT (a
 * test that must see the memory sampled before it goes ends it then).
 *
 * Part of the guest test kit: scripts/guest builds it statically into
 * build/guest/bin/ and puts it on the guest's PATH.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	sigset_t unblocked;
	int until_signal;
	size_t len, off, page = (size_t)sysconf(_SC_PAGESIZE);
	struct timespec hold;
	char *p;

	if (argc != 3) {
		fprintf(stderr, "usage: memhog MIB SECONDS\n");
		return 2;
	}
	len = strtoul(argv[1], NULL, 0) << 20;
	until_signal = !strcmp(argv[2], "-");
	hold.tv_sec = until_signal ? 0 : strtoul(argv[2], NULL, 0);
	if (until_signal) {
		sigset_t block;

		/* Blocked until sigsuspend(): none can come between the test
		 * of stop and the wait. */
		sigemptyset(&block);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGINT);
		sigprocmask(SIG_BLOCK, &block, &unblocked);
		signal(SIGTERM, on_signal);
		signal(SIGINT, on_signal);
	}
	hold.tv_nsec = 0;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED) {
		perror("memhog: mmap");
		return 1;
	}
	/* Non-zero data: nothing can be deduplicated or left unbacked. */
	for (off = 0; off < len; off += page)
		memset(p + off, 0x5a, page);
	if (until_signal)
		printf("memhog: %zu MiB resident, holding until SIGTERM\n",
		       len >> 20);
	else
		printf("memhog: %zu MiB resident, holding for %ld s\n",
		       len >> 20, (long)hold.tv_sec);
	fflush(stdout);
	if (!until_signal)
		nanosleep(&hold, NULL);
	while (until_signal && !stop)
		sigsuspend(&unblocked);
	return 0;
}
