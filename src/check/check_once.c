// SPDX-License-Identifier: Apache-2.0
/*
 * `rdma_exporter once` / `rdma_exporter --once`: one poll of every enabled
 * collector, its exposition (the same a scrape gives) written to stdout or
 * atomically to --once.output=FILE, for node_exporter's textfile collector
 * at sites that allow no new port.
 */
#include "check/check_main.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "daemon/daemon.h"

struct once_run {
	const char *output; /* NULL: stdout */
	int status;
};

static void once_usage(void *arg)
{
	(void)arg;
	printf("Usage: rdma_exporter once [--once.output=FILE] [FLAGS]\n"
	       "       rdma_exporter --once [--once.output=FILE] [FLAGS]\n"
	       "\n"
	       "Polls every enabled collector once and writes the exposition a scrape would\n"
	       "give to stdout, or to FILE: written next to it, synced and renamed over it,\n"
	       "so node_exporter's textfile collector never reads half a file (name it\n"
	       "*.prom). FLAGS are the exporter's (see rdma_exporter --help).\n"
	       "\nExit status: 0 written, 1 not written, 2 bad flags.\n");
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The directory of path synced, so the rename survives a crash. */
static void sync_dir(const char *path)
{
	char *dir = strdup(path), *slash;
	int fd;

	if (!dir)
		return;
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/* PATH.tmp.XXXXXX in the same directory, written, synced, renamed. 0 or -errno. */
static int write_atomic(const char *path, const char *text, size_t len)
{
	size_t n = strlen(path) + sizeof(".tmp.XXXXXX");
	char *tmp = malloc(n);
	int fd, r;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, n, "%s.tmp.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	r = write_all(fd, text, len);
	if (r == 0 && fchmod(fd, 0644) < 0)
		r = -errno;
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	else
		sync_dir(path);
	free(tmp);
	return r;
}

static int once_reading(void *arg, unsigned n, const char *text, size_t len)
{
	struct once_run *run = arg;
	int r;

	(void)n;
	if (run->output) {
		r = write_atomic(run->output, text, len);
	} else {
		r = fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : -EIO;
	}
	if (r < 0)
		log_error("cannot write the exposition", "file=%s err=%s",
			  run->output ? run->output : "stdout", strerror(-r));
	run->status = r < 0 ? 1 : 0;
	return 0;
}

/* --once and --once.output[=FILE] out of argv into run; the rest into rest. */
static int once_flags(struct once_run *run, int argc, char *argv[], char **rest, int *n_rest)
{
	*n_rest = 0;
	rest[(*n_rest)++] = argv[0];
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--once") == 0)
			continue;
		if (strncmp(argv[i], "--once.output=", 14) == 0) {
			run->output = argv[i] + 14;
		} else if (strcmp(argv[i], "--once.output") == 0) {
			if (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0) {
				fprintf(stderr,
					"rdma_exporter: error: --once.output needs a value\n");
				return -EINVAL;
			}
			run->output = argv[++i];
		} else {
			rest[(*n_rest)++] = argv[i];
			continue;
		}
		if (!*run->output) {
			fprintf(stderr, "rdma_exporter: error: --once.output: empty path\n");
			return -EINVAL;
		}
	}
	return 0;
}

int once_main(int argc, char *argv[])
{
	static struct once_run run;
	struct daemon_oneshot ops = {
		.usage = once_usage,
		.reading = once_reading,
		.arg = &run,
		.status = &run.status,
	};
	char **rest = calloc((size_t)argc + 2, sizeof(*rest));
	int n_rest, rc = 2;

	if (!rest)
		return 1;
	run = (struct once_run){.status = 1};
	if (once_flags(&run, argc, argv, rest + 1, &n_rest) == 0) {
		/* stdout is the exposition: logs go to stderr, warnings only unless asked */
		rest[0] = rest[1];
		rest[1] = (char *)"--log.level=warn";
		rc = daemon_oneshot(n_rest + 1, rest, &ops);
	}
	free(rest);
	return rc;
}
