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
#include <limits.h>
#include <signal.h>
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

/* The stop signals that remove the temporary file on their way out. */
static const int stop_signals[] = {SIGTERM, SIGINT, SIGHUP};

/*
 * The temporary file while it exists, for the stop signals' handler: it may
 * run on any thread (the pollers'), so the name lives here, not on a stack.
 * tmp_live is set before mkostemp() creates the file and cleared after the
 * rename, so no moment has a temporary file the handler does not know. It is
 * read and written with atomics (lock-free, so async-signal-safe): the handler
 * may run on another thread, and volatile sig_atomic_t orders nothing between
 * threads (TSan reported that race); the store that sets it publishes tmp_path.
 */
static char tmp_path[PATH_MAX];
static int tmp_live;

#pragma weak check_test_hook

static void test_hook(const char *stage)
{
	if (check_test_hook)
		check_test_hook(stage);
}

static void once_usage(void *arg)
{
	(void)arg;
	printf("Usage: rdma_exporter once [--once.output=FILE] [FLAGS]\n"
	       "       rdma_exporter --once [--once.output=FILE] [FLAGS]\n"
	       "\n"
	       "Polls every enabled collector once and writes the exposition a scrape would\n"
	       "give to stdout, or to FILE: written next to it, synced and renamed over it,\n"
	       "so node_exporter's textfile collector never reads half a file (name it\n"
	       "*.prom). FILE must be a regular file or a new name: a FIFO, device,\n"
	       "symlink or directory there is refused (exit 1); for a pipe, use stdout.\n"
	       "FLAGS are the exporter's (see rdma_exporter --help).\n"
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

/* Async-signal-safe: unlink, sigaction and raise only. */
static void remove_tmp_and_stop(int sig)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};

	if (__atomic_load_n(&tmp_live, __ATOMIC_ACQUIRE))
		unlink(tmp_path);
	sigaction(sig, &dfl, NULL);
	raise(sig);
}

static void stop_signals_catch(struct sigaction *saved)
{
	struct sigaction sa = {.sa_handler = remove_tmp_and_stop};

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaction(stop_signals[i], &sa, &saved[i]);
}

static void stop_signals_restore(const struct sigaction *saved)
{
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaction(stop_signals[i], &saved[i], NULL);
}

/*
 * 0 when path is a regular file or a new name; -EEXIST with *what set when
 * it is anything else (lstat: a symlink is one, whatever it points to). A
 * rename over a FIFO, a device node or a symlink would replace that node
 * itself, never write into it: as root, --once.output=/dev/null would turn
 * /dev/null into a regular file for every other process.
 */
static int check_target(const char *path, const char **what)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISREG(st.st_mode))
		return 0;
	*what = S_ISLNK(st.st_mode)    ? "a symlink"
		: S_ISFIFO(st.st_mode) ? "a FIFO"
		: S_ISCHR(st.st_mode)  ? "a character device"
		: S_ISBLK(st.st_mode)  ? "a block device"
		: S_ISDIR(st.st_mode)  ? "a directory"
		: S_ISSOCK(st.st_mode) ? "a socket"
				       : "not a regular file";
	return -EEXIST;
}

/* The temporary file written, synced and renamed over path. 0 or -errno. */
static int write_tmp_and_rename(const char *path, const char *text, size_t len, const char **what)
{
	int fd, r;

	__atomic_store_n(&tmp_live, 1, __ATOMIC_RELEASE);
	fd = mkostemp(tmp_path, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		__atomic_store_n(&tmp_live, 0, __ATOMIC_RELEASE);
		return r;
	}
	r = write_all(fd, text, len);
	if (r == 0 && fchmod(fd, 0644) < 0)
		r = -errno;
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	test_hook("once-written");
	/* again: what was a new name a poll ago may be a FIFO now */
	if (r == 0)
		r = check_target(path, what);
	if (r == 0 && rename(tmp_path, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp_path);
	__atomic_store_n(&tmp_live, 0, __ATOMIC_RELEASE);
	return r;
}

/*
 * PATH.tmp.XXXXXX in the same directory, written, synced, renamed over
 * PATH; SIGTERM, SIGINT or SIGHUP meanwhile removes it before the process
 * ends. 0 or -errno; -EEXIST with *what set when PATH is not a regular file.
 */
int check_write_atomic(const char *path, const char *text, size_t len, const char **what)
{
	struct sigaction saved[sizeof(stop_signals) / sizeof(stop_signals[0])];
	int r = check_target(path, what);

	if (r < 0)
		return r;
	if ((size_t)snprintf(tmp_path, sizeof(tmp_path), "%s.tmp.XXXXXX", path) >= sizeof(tmp_path))
		return -ENAMETOOLONG;
	stop_signals_catch(saved);
	r = write_tmp_and_rename(path, text, len, what);
	stop_signals_restore(saved);
	if (r == 0)
		sync_dir(path);
	return r;
}

static int once_reading(void *arg, unsigned n, const char *text, size_t len)
{
	struct once_run *run = arg;
	const char *what = NULL;
	int r;

	(void)n;
	/* write(2) on stdout's fd, not stdio: its errno (ENOSPC) is the one logged */
	if (run->output)
		r = check_write_atomic(run->output, text, len, &what);
	else
		r = fflush(stdout) == 0 ? write_all(STDOUT_FILENO, text, len) : -errno;
	if (r == -EEXIST && what)
		log_error("refusing to replace what is not a regular file", "file=%s type=%s",
			  run->output, what);
	else if (r < 0)
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
