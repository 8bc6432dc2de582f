// SPDX-License-Identifier: GPL-2.0
/*
 * memhog MIB SECONDS: allocate MIB MiB of anonymous memory, write to every
 * page so that all of it is resident (and charged to our memory cgroup: the
 * guest has no swap), hold it for SECONDS, then exit.
 *
 * Part of the guest test kit: scripts/guest builds it statically into
 * build/guest/bin/ and puts it on the guest's PATH.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t len, off, page = (size_t)sysconf(_SC_PAGESIZE);
	struct timespec hold;
	char *p;

	if (argc != 3) {
		fprintf(stderr, "usage: memhog MIB SECONDS\n");
		return 2;
	}
	len = strtoul(argv[1], NULL, 0) << 20;
	hold.tv_sec = strtoul(argv[2], NULL, 0);
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
	printf("memhog: %zu MiB resident, holding for %ld s\n", len >> 20,
	       (long)hold.tv_sec);
	fflush(stdout);
	nanosleep(&hold, NULL);
	return 0;
}
