// SPDX-License-Identifier: Apache-2.0
/*
 * An LD_PRELOAD shim for poll-cost.sh (a benchmark aid, never linked into the
 * exporter): wraps malloc_trim() to count its calls and the CPU they take on
 * the calling thread (CLOCK_THREAD_CPUTIME_ID, ns), and with TRIM_SHIM=never
 * skips them, so that one binary measures "trim" against "never trim"; and
 * counts and times mallinfo2(), which the poller's trim policy reads.
 * After every call the totals ("CALLS CPU_NS SKIPPED MI_CALLS MI_CPU_NS\n",
 * malloc_trim's then mallinfo2's) are rewritten at
 * offset 0 of the file named by TRIM_SHIM_OUT, read by the script at both
 * ends of its window (the totals only grow, so the line never shrinks).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t calls, cpu_ns, skipped, mi_calls, mi_ns;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void write_totals(void)
{
	const char *path = getenv("TRIM_SHIM_OUT");
	char line[96];
	int fd, n;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%llu %llu %llu %llu %llu\n", (unsigned long long)calls,
		     (unsigned long long)cpu_ns, (unsigned long long)skipped,
		     (unsigned long long)mi_calls, (unsigned long long)mi_ns);
	/* a short write loses this call's figures only: the next rewrites them */
	if (n > 0 && pwrite(fd, line, (size_t)n, 0) < 0)
		n = 0;
	close(fd);
}

int malloc_trim(size_t pad)
{
	static int (*real)(size_t);
	const char *mode = getenv("TRIM_SHIM");
	uint64_t t0;
	int r;

	if (mode && strcmp(mode, "never") == 0) {
		skipped++;
		write_totals();
		return 0;
	}
	if (!real)
		real = (int (*)(size_t))dlsym(RTLD_NEXT, "malloc_trim");
	t0 = thread_cpu_ns();
	r = real ? real(pad) : 0;
	cpu_ns += thread_cpu_ns() - t0;
	calls++;
	write_totals();
	return r;
}

struct mallinfo2 mallinfo2(void)
{
	static struct mallinfo2 (*real)(void);
	struct mallinfo2 mi = {0};
	uint64_t t0;

	if (!real)
		real = (struct mallinfo2(*)(void))dlsym(RTLD_NEXT, "mallinfo2");
	t0 = thread_cpu_ns();
	if (real)
		mi = real();
	mi_ns += thread_cpu_ns() - t0;
	mi_calls++;
	write_totals();
	return mi;
}
