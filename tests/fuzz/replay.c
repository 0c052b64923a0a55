// SPDX-License-Identifier: Apache-2.0
/*
 * Replays inputs through a fuzz target's LLVMFuzzerTestOneInput without
 * libFuzzer, so that ctest runs the committed corpora with the normal compiler
 * (and again in the ASan+UBSan build):
 *
 *   replay_NAME PATH...
 *
 * Each PATH is a file or a directory whose regular files are replayed (not
 * recursively, in name order so that a failure is reproducible). Each input is
 * an exact-size heap copy, so ASan sees a read past its end. A broken invariant
 * aborts; the name of the input being replayed is printed first.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

/* Reads the whole file into an exact-size heap buffer; 0 or -errno. */
static int read_file(const char *path, uint8_t **data, size_t *size)
{
	uint8_t *p = NULL;
	size_t len = 0, cap = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (len == cap) {
			uint8_t *q = realloc(p, cap ? cap * 2 : 4096);

			if (!q) {
				r = -ENOMEM;
				break;
			}
			p = q;
			cap = cap ? cap * 2 : 4096;
		}
		n = read(fd, p + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (r == 0) {
		/* exact size: a read one past the input is a heap overflow */
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact)
			r = -ENOMEM;
		else if (len)
			memcpy(exact, p, len);
		*data = exact;
		*size = len;
	}
	free(p);
	return r;
}

static int replay_file(const char *path)
{
	uint8_t *data = NULL;
	size_t size = 0;
	int r = read_file(path, &data, &size);

	if (r < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(-r));
		return r;
	}
	/* on stderr before the run, so an abort names its input */
	if (getenv("FUZZ_REPLAY_VERBOSE"))
		fprintf(stderr, "replay: %s (%zu bytes)\n", path, size);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays every regular file of dir; returns the count, or -errno. */
static long replay_dir(const char *dir)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	long done = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **q = realloc(names, (cap ? cap * 2 : 64) * sizeof(*names));

			if (!q)
				break;
			names = q;
			cap = cap ? cap * 2 : 64;
		}
		if (asprintf(&names[n], "%s/%s", dir, de->d_name) < 0)
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
			if (replay_file(names[i]) < 0)
				done = -EIO;
			else if (done >= 0)
				done++;
		}
		free(names[i]);
	}
	free(names);
	return done;
}

int main(int argc, char **argv)
{
	long total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		long n;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			n = replay_dir(argv[i]);
			if (n < 0) {
				fprintf(stderr, "replay: %s: %s\n", argv[i], strerror((int)-n));
				return 1;
			}
			if (n == 0) {
				/* an empty corpus would pass while testing nothing */
				fprintf(stderr, "replay: %s: no inputs\n", argv[i]);
				return 1;
			}
		} else {
			if (replay_file(argv[i]) < 0)
				return 1;
			n = 1;
		}
		total += n;
	}
	printf("replay: %ld inputs, no failure\n", total);
	return 0;
}
