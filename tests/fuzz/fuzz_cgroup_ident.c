// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: cg_ident_parse (the content of /proc/<pid>/cgroup) and
 * cg_stat_starttime and cg_stat_comm (/proc/<pid>/stat) on the raw input bytes.
 *
 * Invariants: the result says whether a label was found; every label is
 * NUL-terminated inside its field and made of its character set (pod UID:
 * lower-case hex and '-', at most 36; container ID: exactly 64 lower-case
 * hex digits; job ID: 1 to 20 digits; unit: systemd's unit characters,
 * ending in ".service"); each label (the pod UID with '-' or '_') occurs in
 * the input; a service is never named for a pod or a job; a container only
 * with its pod; bytes after the last newline (a cut line) change nothing.
 */
#include <string.h>

#include "cgroup_ident.h"
#include "fuzz.h"

static void check_set(const char *s, size_t size, const char *set)
{
	size_t n = strnlen(s, size);

	FUZZ_CHECK(n < size);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(strchr(set, s[i]) != NULL);
}

/* Whether needle (with '-' also matching '_' when loose) is in the input. */
static int occurs(const uint8_t *data, size_t size, const char *needle, int loose)
{
	size_t n = strlen(needle);

	for (size_t i = 0; n && i + n <= size; i++) {
		size_t j = 0;

		for (; j < n; j++) {
			char c = (char)data[i + j];

			if (c != needle[j] && !(loose && needle[j] == '-' && c == '_'))
				break;
		}
		if (j == n)
			return 1;
	}
	return 0;
}

static void check_ident(const uint8_t *data, size_t size, const struct cg_ident *id, int r)
{
	size_t ulen;

	FUZZ_CHECK(r == (cg_ident_empty(id) ? 0 : 1));
	check_set(id->pod_uid, sizeof(id->pod_uid), "0123456789abcdef-");
	check_set(id->container_id, sizeof(id->container_id), "0123456789abcdef");
	check_set(id->slurm_job_id, sizeof(id->slurm_job_id), "0123456789");
	check_set(id->systemd_unit, sizeof(id->systemd_unit),
		  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:_.-@\\");
	FUZZ_CHECK(!id->container_id[0] || strlen(id->container_id) == 64);
	FUZZ_CHECK(!id->container_id[0] || id->pod_uid[0]);
	ulen = strlen(id->systemd_unit);
	FUZZ_CHECK(!ulen || (ulen > 8 && strcmp(id->systemd_unit + ulen - 8, ".service") == 0));
	FUZZ_CHECK(!ulen || (!id->pod_uid[0] && !id->slurm_job_id[0]));
	FUZZ_CHECK(occurs(data, size, id->pod_uid, 1) || !id->pod_uid[0]);
	FUZZ_CHECK(occurs(data, size, id->container_id, 0) || !id->container_id[0]);
	FUZZ_CHECK(occurs(data, size, id->slurm_job_id, 0) || !id->slurm_job_id[0]);
	FUZZ_CHECK(occurs(data, size, id->systemd_unit, 0) || !ulen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cg_ident id, whole;
	size_t complete = size;
	uint64_t start;
	char comm[16];
	int r;

	r = cg_ident_parse((const char *)data, size, &id);
	check_ident(data, size, &id, r);
	/* Only complete lines count: the same without the cut tail. */
	while (complete && data[complete - 1] != '\n')
		complete--;
	FUZZ_CHECK(cg_ident_parse((const char *)data, complete, &whole) == r);
	FUZZ_CHECK(cg_ident_equal(&id, &whole));

	r = cg_stat_starttime((const char *)data, size, &start);
	FUZZ_CHECK(r == 0 || r == -22);
	r = cg_stat_comm((const char *)data, size, comm, sizeof(comm));
	FUZZ_CHECK(r == 0 || r == -22);
	FUZZ_CHECK(r < 0 || strnlen(comm, sizeof(comm)) < sizeof(comm));
	return 0;
}
