// SPDX-License-Identifier: Apache-2.0
/*
 * `rdma_exporter check` (check.h): the exporter's collectors, run in this
 * process twice a window apart, the checks evaluated on the two renderings,
 * the result on stdout and as the exit status. And the program's entry,
 * which picks the subcommand (check_main.h).
 */
#include "check/check_main.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"
#include "check/check.h"
#include "check/check_flags.h"
#include "check/check_state.h"
#include "check/check_statefile.h"
#include "collector.h"
#include "daemon/config.h"
#include "daemon/daemon.h"
#include "probe/probe.h"

/* The longest --check.expect-file read: far above any node's description. */
#define EXPECT_FILE_MAX (64 * 1024)

struct check_run {
	struct check_options o;
	struct check_expect expect;
	struct check_expect_pcie expect_pcie;
	struct check_table t[2];
	struct check_state history; /* the flaps check's, read before the readings */
	char state_path[PATH_MAX];
	char state_refused[160]; /* why the history is not trusted; "": it is */
	int status;
};

#pragma weak check_test_hook
#pragma weak check_test_now

/* The wall clock in Unix seconds, or a test binary's (check_main.h). */
static uint64_t now_s(void)
{
	uint64_t t = check_test_now ? check_test_now() : 0;
	struct timespec ts;

	if (t)
		return t;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec > 0 ? (uint64_t)ts.tv_sec : 0;
}

static void test_hook(const char *stage)
{
	if (check_test_hook)
		check_test_hook(stage);
}

static void sleep_ms(uint64_t ms)
{
	struct timespec left = {.tv_sec = (time_t)(ms / 1000),
				.tv_nsec = (long)(ms % 1000) * 1000000};

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &left, &left) == EINTR)
		;
}

static void check_usage(void *arg)
{
	(void)arg;
	printf("Usage: rdma_exporter check [CHECK FLAGS] [FLAGS]\n"
	       "\n"
	       "Node health check for schedulers (Slurm NHC, node-problem-detector): runs the\n"
	       "collectors twice, a window apart, and checks ports, error counters, PFC\n"
	       "pauses, resources, loopback probes, and link flaps since the last run (a\n"
	       "state file). Prints a one-line summary, then one line per check and\n"
	       "object. See docs/check.md.\n"
	       "\n");
	check_flags_usage(stdout);
	printf("\nFLAGS are the exporter's (--path.sysfs, --collector.*, --log.level, ...; see\n"
	       "rdma_exporter --help); --web.* flags are accepted and unused.\n"
	       "\nExit status: 0 healthy, 1 unhealthy, 2 cannot tell (or bad flags).\n");
}

/* Probes in a check: rounds that fit the window, no responder (a running
 * daemon on this node already answers, on its port); none when no probe
 * check is on. */
static void check_configure(void *arg, struct exporter_config *cfg)
{
	struct check_run *run = arg;

	for (unsigned i = 0; i < collector_table_len; i++) {
		uint64_t *f = cfg->collector_flags[i];

		if (strcmp(collector_table[i]->name, "probe") != 0)
			continue;
		if (!run->o.cfg.probe && !run->o.cfg.peers)
			cfg->collector_enabled[i] = false;
		if (f[PROBE_FLAG_INTERVAL] == collector_table[i]->flags[PROBE_FLAG_INTERVAL].def) {
			uint64_t ms = run->o.window_ms / 3;

			f[PROBE_FLAG_INTERVAL] = ms < 100 ? 100 : ms > 10000 ? 10000 : ms;
		}
		f[PROBE_FLAG_RESPONDER] = 0;
	}
}

/*
 * The flaps check's history: --check.state-file, else the first directory of
 * $STATE_DIRECTORY (systemd's StateDirectory=), else /var/lib/rdma_exporter.
 */
static int state_path(struct check_run *run)
{
	const char *dir = getenv("STATE_DIRECTORY");
	size_t size = sizeof(run->state_path);
	int n;

	if (run->o.state_file)
		n = snprintf(run->state_path, size, "%s", run->o.state_file);
	else if (dir && *dir && *dir != ':')
		n = snprintf(run->state_path, size, "%.*s/check-state", (int)strcspn(dir, ":"),
			     dir);
	else
		n = snprintf(run->state_path, size, "/var/lib/rdma_exporter/check-state");
	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

/* Up to max + 1 bytes of fd into a new buffer (NUL-terminated): the length or -errno. */
static ssize_t read_bounded(int fd, size_t max, char **text)
{
	size_t len = 0;
	ssize_t n = 1;

	*text = malloc(max + 2);
	if (!*text)
		return -ENOMEM;
	while (len <= max && n > 0) {
		n = read(fd, *text + len, max + 1 - len);
		if (n < 0 && errno == EINTR)
			n = 1;
		else if (n > 0)
			len += (size_t)n;
	}
	if (n < 0) {
		int e = errno;

		free(*text);
		*text = NULL;
		return -e;
	}
	(*text)[len] = '\0';
	return (ssize_t)len;
}

/*
 * The last run's history into run->history. No file: the first run, an
 * empty history. One that cannot be read or parsed (too big, cut short,
 * garbage) is never the node's fault: a warning, and a new history. One that
 * is not trusted (check_statefile.h: a symlink, another user's) is neither
 * read nor written: an error, and the flaps check is UNKNOWN.
 */
static void load_history(struct check_run *run)
{
	char *text = NULL, eb[128];
	size_t bad = 0;
	ssize_t len;
	int fd, r;

	run->state_refused[0] = '\0';
	fd = check_statefile_open(run->state_path, geteuid(), getegid(), run->state_refused,
				  sizeof(run->state_refused));
	if (fd == -ENOENT) {
		log_info("no flaps check history yet: this run starts it", "path=%s",
			 run->state_path);
		return;
	}
	if (fd == -EPERM && run->state_refused[0]) {
		log_error("the flaps check history is not trusted: flaps cannot be judged, and it "
			  "is left as it is",
			  "path=%s why=%s", run->state_path, run->state_refused);
		return;
	}
	len = fd < 0 ? fd : read_bounded(fd, CHECK_STATE_MAX_BYTES, &text);
	if (fd >= 0)
		close(fd);
	r = len < 0 ? (int)len : check_state_parse(&run->history, text, (size_t)len, &bad);
	free(text);
	if (r == 0)
		return;
	if (bad)
		log_warn("the flaps check history is not valid: starting a new one",
			 "path=%s line=%zu", run->state_path, bad);
	else
		log_warn("cannot read the flaps check history: starting a new one",
			 "path=%s err=%s", run->state_path,
			 r == -EFBIG ? "larger than 256 KiB"
				     : open_regular_strerror(r, eb, sizeof(eb)));
}

/* The next history written atomically; a failure is a warning, never a FAIL. */
static void save_history(struct check_run *run, const struct check_state *next)
{
	struct buf text = BUF_INIT;
	const char *what = NULL;
	char eb[128];
	int r = check_state_format(next, &text);

	if (r == 0)
		r = check_write_atomic(run->state_path, text.data, text.len, &what);
	if (r < 0)
		log_warn("cannot write the flaps check history: flaps since this run will not be "
			 "seen",
			 "path=%s err=%s", run->state_path,
			 what ? what : log_strerror(r, eb, sizeof(eb)));
	buf_free(&text);
}

/* Every check on the readings; the flaps check also on the history. */
static int check_results_of(struct check_run *run, struct check_results *res)
{
	struct check_state next;
	int r = check_evaluate(&run->o.cfg, &run->t[0], &run->t[1], res);

	if (r < 0 || !run->o.cfg.flaps)
		return r;
	if (run->state_refused[0]) {
		r = check_result_add(res, CHECK_UNKNOWN, "flaps", "node",
				     "the history %s %s: not trusted, flaps cannot be judged "
				     "(remove it, or fix its owner and mode)",
				     run->state_path, run->state_refused);
		if (r < 0)
			check_results_free(res);
		return r;
	}
	r = check_flaps_evaluate(&run->o.cfg, &run->history, now_s(), &run->t[1], res, &next);
	if (r < 0) {
		check_results_free(res);
		return r;
	}
	save_history(run, &next);
	check_state_free(&next);
	return 0;
}

static int check_report(struct check_run *run)
{
	struct check_results res;
	struct buf out = BUF_INIT;
	int r = check_results_of(run, &res);

	if (r == 0)
		r = run->o.json ? check_render_json(&res, &out) : check_render_text(&res, &out);
	if (r < 0) {
		check_results_free(&res);
		buf_free(&out);
		return r;
	}
	run->status = (int)check_overall(&res);
	if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		log_error("cannot write the check result", "err=%s", strerror(errno));
		run->status = CHECK_UNKNOWN;
	}
	check_results_free(&res);
	buf_free(&out);
	return 0;
}

static int check_reading(void *arg, unsigned n, const char *text, size_t len)
{
	struct check_run *run = arg;
	size_t bad = 0;
	int r = check_table_parse(&run->t[n], text, len, &bad);

	if (r < 0) {
		/* the exporter's own rendering: a bug, never the node's fault */
		log_error("cannot read back the exposition", "line=%zu err=%s", bad, strerror(-r));
		printf("UNKNOWN: internal error reading the collectors' output\n");
		run->status = CHECK_UNKNOWN;
		return 0;
	}
	if (n == 0) {
		if (run->o.cfg.flaps)
			load_history(run);
		test_hook("between");
		sleep_ms(run->o.window_ms);
		return 1;
	}
	return check_report(run);
}

/*
 * --check.expect-file read whole into *text (NUL-terminated): 0, or exit 2
 * with the error on stderr. A NUL in it is an error: the parser would stop
 * there, and the devices after it would go unchecked with an "OK".
 */
static int read_expect_file(const char *path, char **text)
{
	const char *nul = NULL;
	int fd, r;
	ssize_t n;

	fd = open_regular_at(AT_FDCWD, path);
	*text = fd >= 0 ? calloc(1, EXPECT_FILE_MAX + 1) : NULL;
	n = *text ? read(fd, *text, EXPECT_FILE_MAX + 1) : -1;
	r = fd < 0 ? fd : n < 0 ? -errno : n > EXPECT_FILE_MAX ? -EFBIG : 0;
	if (fd >= 0)
		close(fd);
	if (r == 0)
		nul = memchr(*text, '\0', (size_t)n);
	if (r < 0) {
		char eb[128];

		fprintf(stderr, "rdma_exporter: error: --check.expect-file: \"%s\": %s\n", path,
			open_regular_strerror(r, eb, sizeof(eb)));
	} else if (nul)
		fprintf(stderr,
			"rdma_exporter: error: --check.expect-file: \"%s\": a NUL byte at offset "
			"%zu: not a text file\n",
			path, (size_t)(nul - *text));
	if (r == 0 && !nul)
		return 0;
	free(*text);
	*text = NULL;
	return 2;
}

/* The spec of --check.expect, or read from --check.expect-file: 0 or exit 2. */
static int load_expect(struct check_run *run)
{
	char why[256], *text = NULL;
	const char *spec = run->o.expect;
	int r = 0;

	if (run->o.expect_file) {
		if (read_expect_file(run->o.expect_file, &text) != 0)
			return 2;
		spec = text;
	}
	if (spec && check_expect_parse(spec, &run->expect, why, sizeof(why)) < 0) {
		fprintf(stderr, "rdma_exporter: error: --check.expect%s: %s\n",
			run->o.expect_file ? "-file" : "", why);
		r = 2;
	}
	if (spec && r == 0)
		run->o.cfg.expect = &run->expect;
	free(text);
	if (r == 0 && run->o.expect_pcie) {
		if (check_expect_pcie_parse(run->o.expect_pcie, &run->expect_pcie, why,
					    sizeof(why)) < 0) {
			fprintf(stderr, "rdma_exporter: error: --check.expect-pcie: %s\n", why);
			return 2;
		}
		run->o.cfg.expect_pcie = &run->expect_pcie;
	}
	return r;
}

int check_main(int argc, char *argv[])
{
	static struct check_run run;
	struct daemon_oneshot ops = {
		.usage = check_usage,
		.configure = check_configure,
		.reading = check_reading,
		.arg = &run,
		.status = &run.status,
	};
	char err[256], **rest = calloc((size_t)argc + 2, sizeof(*rest));
	int n_rest, rc;

	if (!rest)
		return CHECK_UNKNOWN;
	run = (struct check_run){.status = CHECK_UNKNOWN};
	if (check_flags_parse(&run.o, argc, argv, rest + 1, &n_rest, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdma_exporter check: error: %s\n", err);
		free(rest);
		return 2;
	}
	/* Logs go to stderr; in a check only warnings, unless --log.level says. */
	rest[0] = rest[1];
	rest[1] = (char *)"--log.level=warn";
	rc = load_expect(&run);
	if (rc == 0 && run.o.cfg.flaps && state_path(&run) < 0) {
		fprintf(stderr,
			"rdma_exporter: error: the flaps check's state file path is too long\n");
		rc = 2;
	}
	if (rc == 0)
		rc = daemon_oneshot(n_rest + 1, rest, &ops);
	check_table_free(&run.t[0]);
	check_table_free(&run.t[1]);
	check_state_free(&run.history);
	check_expect_free(&run.expect);
	check_expect_pcie_free(&run.expect_pcie);
	free(rest);
	return rc;
}

void check_main_usage_summary(FILE *out)
{
	fprintf(out,
		"\nSubcommands:\n"
		"  rdma_exporter check [CHECK FLAGS] [FLAGS]\n"
		"                                   Node health check for schedulers: exit 0\n"
		"                                   healthy, 1 unhealthy, 2 cannot tell (see\n"
		"                                   the check flags below and docs/check.md).\n"
		"  rdma_exporter once [--once.output=FILE] [FLAGS]\n"
		"                                   Also written --once: write one exposition\n"
		"                                   (every enabled collector, the same metrics a\n"
		"                                   scrape gives) to stdout, or atomically to\n"
		"                                   FILE (a regular file or a new name), for\n"
		"                                   node_exporter's textfile collector; exit 0,\n"
		"                                   or 1 when it cannot be written.\n"
		"\n");
	check_flags_usage(out);
}
