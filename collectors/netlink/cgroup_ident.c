// SPDX-License-Identifier: Apache-2.0
#include "cgroup_ident.h"

#include <errno.h>
#include <string.h>

/* A byte range of the input: nothing here is NUL-terminated. */
struct span {
	const char *p;
	size_t n;
};

static bool has_prefix(struct span s, const char *pre)
{
	size_t n = strlen(pre);

	return s.n >= n && memcmp(s.p, pre, n) == 0;
}

static bool has_suffix(struct span s, const char *suf)
{
	size_t n = strlen(suf);

	return s.n >= n && memcmp(s.p + s.n - n, suf, n) == 0;
}

static bool span_is(struct span s, const char *str)
{
	return s.n == strlen(str) && memcmp(s.p, str, s.n) == 0;
}

/* Offset of the last occurrence of needle in s, or -1. */
static long span_rfind(struct span s, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = s.n; i >= n; i--)
		if (memcmp(s.p + i - n, needle, n) == 0)
			return (long)(i - n);
	return -1;
}

static bool span_has(struct span s, const char *needle)
{
	return span_rfind(s, needle) >= 0;
}

/* Every byte of s in set (a NUL byte never is). */
static bool all_of(struct span s, const char *set)
{
	for (size_t i = 0; i < s.n; i++)
		if (!s.p[i] || !strchr(set, s.p[i]))
			return false;
	return true;
}

/* Copies s when it fits whole (a cut label would name another workload). */
static bool put(char *dst, size_t size, struct span s)
{
	if (!s.n || s.n >= size)
		return false;
	memcpy(dst, s.p, s.n);
	dst[s.n] = '\0';
	return true;
}

static const char hex[] = "0123456789abcdef";

/* A pod UID: lower-case hex and dashes; the systemd driver escapes '-' as '_'. */
static bool pod_uid_from(struct span s, struct cg_ident *id)
{
	if (!all_of(s, "0123456789abcdef-_") || !put(id->pod_uid, sizeof(id->pod_uid), s))
		return false;
	for (char *c = id->pod_uid; *c; c++)
		if (*c == '_')
			*c = '-';
	return true;
}

/* The container segment below a pod: its runtime's prefix and .scope stripped. */
static void container_from(struct span s, struct cg_ident *id)
{
	static const char *const prefixes[] = {"cri-containerd-", "cri-dockerd-", "crio-",
					       "docker-"};

	if (has_suffix(s, ".scope")) {
		s.n -= strlen(".scope");
		for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
			if (has_prefix(s, prefixes[i])) {
				s.p += strlen(prefixes[i]);
				s.n -= strlen(prefixes[i]);
				break;
			}
	} else if (has_prefix(s, "crio-")) {
		s.p += strlen("crio-");
		s.n -= strlen("crio-");
	}
	if (s.n == CG_CONTAINER_ID_MAX - 1 && all_of(s, hex))
		put(id->container_id, sizeof(id->container_id), s);
}

struct walk {
	bool kube, slurm, after_pod, user;
	struct span unit;
};

/* Kubernetes segments; true when seg was one. */
static bool kube_segment(struct walk *w, struct span seg, struct cg_ident *id)
{
	long at;

	if (w->after_pod) {
		w->after_pod = false;
		container_from(seg, id);
		return true;
	}
	if (id->pod_uid[0])
		return false;
	if (span_has(seg, "kubepods")) {
		w->kube = true;
		/* systemd driver: kubepods[-<qos>]-pod<uid>.slice */
		at = span_rfind(seg, "-pod");
		if (has_suffix(seg, ".slice") && at > (long)span_rfind(seg, "kubepods")) {
			struct span uid = {seg.p + at + 4,
					   seg.n - (size_t)at - 4 - strlen(".slice")};

			w->after_pod = pod_uid_from(uid, id);
		}
		return true;
	}
	/* cgroupfs driver: /kubepods[/<qos>]/pod<uid>/<container> */
	if (w->kube && has_prefix(seg, "pod")) {
		w->after_pod = pod_uid_from((struct span){seg.p + 3, seg.n - 3}, id);
		return w->after_pod;
	}
	return false;
}

static void slurm_segment(struct walk *w, struct span seg, struct cg_ident *id)
{
	if (id->slurm_job_id[0])
		return;
	if (has_prefix(seg, "slurm") || has_suffix(seg, "slurmstepd.scope")) {
		w->slurm = true;
		return;
	}
	if (w->slurm && has_prefix(seg, "job_")) {
		struct span n = {seg.p + 4, seg.n - 4};

		if (all_of(n, "0123456789"))
			put(id->slurm_job_id, sizeof(id->slurm_job_id), n);
	}
}

/* Unit names: systemd's character set, '\' for its \xNN escapes. */
static const char unit_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				 "0123456789:_.-@\\";

static void parse_path(struct span path, struct cg_ident *id)
{
	struct walk w = {0};
	size_t i = 1, first = 1;

	while (i <= path.n) {
		size_t end = i;
		struct span seg;

		while (end < path.n && path.p[end] != '/')
			end++;
		seg = (struct span){path.p + i, end - i};
		i = end + 1;
		if (!seg.n)
			continue;
		if (first && span_is(seg, "user.slice"))
			w.user = true;
		first = 0;
		/* A reader in a cgroup namespace sees the cgroups outside it as
		 * "/../../x": the kubepods ancestors may be hidden above. */
		if (span_is(seg, "..")) {
			w.kube = true;
			continue;
		}
		if (kube_segment(&w, seg, id))
			continue;
		slurm_segment(&w, seg, id);
		if (!w.unit.n && seg.n > strlen(".service") && has_suffix(seg, ".service") &&
		    all_of(seg, unit_chars))
			w.unit = seg;
	}
	if (!id->pod_uid[0] && !id->slurm_job_id[0] && !w.user && w.unit.n)
		put(id->systemd_unit, sizeof(id->systemd_unit), w.unit);
}

/* Rank of a line by its hierarchy: 0 cgroup v2, 1 name=systemd, 2 memory, 3 other. */
static int line_rank(struct span hier, struct span ctrls)
{
	size_t i = 0;

	if (span_is(hier, "0") && !ctrls.n)
		return 0;
	while (i < ctrls.n) {
		size_t end = i;

		while (end < ctrls.n && ctrls.p[end] != ',')
			end++;
		if (span_is((struct span){ctrls.p + i, end - i}, "name=systemd"))
			return 1;
		if (span_is((struct span){ctrls.p + i, end - i}, "memory"))
			return 2;
		i = end + 1;
	}
	return 3;
}

/* Splits "hierarchy:controllers:path" (the path may hold ':'). */
static bool split_line(struct span line, int *rank, struct span *path)
{
	const char *c1 = memchr(line.p, ':', line.n), *c2;

	if (!c1)
		return false;
	c2 = memchr(c1 + 1, ':', line.n - (size_t)(c1 + 1 - line.p));
	if (!c2)
		return false;
	*rank = line_rank((struct span){line.p, (size_t)(c1 - line.p)},
			  (struct span){c1 + 1, (size_t)(c2 - c1 - 1)});
	*path = (struct span){c2 + 1, line.n - (size_t)(c2 + 1 - line.p)};
	/* The kernel marks a removed cgroup so; the process still names it. */
	if (has_suffix(*path, " (deleted)"))
		path->n -= strlen(" (deleted)");
	return path->n && path->p[0] == '/';
}

/* Parses the lines of one rank; 1: a pod or a job was found. */
static int parse_rank(const char *buf, size_t len, int want, struct cg_ident *id,
		      struct cg_ident *unit_only)
{
	const char *p = buf, *nl;

	while ((nl = memchr(p, '\n', len - (size_t)(p - buf))) != NULL) {
		struct span line = {p, (size_t)(nl - p)}, path;
		struct cg_ident cur = {0};
		int rank;

		p = nl + 1;
		if (!split_line(line, &rank, &path) || rank != want)
			continue;
		parse_path(path, &cur);
		if (cur.pod_uid[0] || cur.slurm_job_id[0]) {
			*id = cur;
			return 1;
		}
		if (cur.systemd_unit[0] && !unit_only->systemd_unit[0])
			*unit_only = cur;
	}
	return 0;
}

int cg_ident_parse(const char *buf, size_t len, struct cg_ident *out)
{
	struct cg_ident unit_only = {0};

	memset(out, 0, sizeof(*out));
	if (!buf)
		return 0;
	for (int rank = 0; rank <= 3; rank++)
		if (parse_rank(buf, len, rank, out, &unit_only))
			return 1;
	*out = unit_only;
	return out->systemd_unit[0] ? 1 : 0;
}

int cg_stat_starttime(const char *buf, size_t len, uint64_t *start)
{
	const char *p = NULL, *end = buf + len;
	unsigned field = 2;
	uint64_t v = 0;

	/* comm is "(...)" and may itself hold ')': the last one closes it. */
	for (size_t i = len; i > 0; i--)
		if (buf[i - 1] == ')') {
			p = buf + i;
			break;
		}
	if (!p)
		return -EINVAL;
	while (field < 22) {
		if (p == end || *p != ' ')
			return -EINVAL;
		p++;
		field++;
		if (field == 22)
			break;
		if (p == end || *p == ' ')
			return -EINVAL; /* an empty field */
		while (p < end && *p != ' ')
			p++;
	}
	if (p == end || *p < '0' || *p > '9')
		return -EINVAL;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p < end && *p != ' ' && *p != '\n')
		return -EINVAL;
	*start = v;
	return 0;
}

int cg_stat_comm(const char *buf, size_t len, char *comm, size_t size)
{
	const char *open = memchr(buf, '(', len), *close = NULL;
	size_t n;

	for (size_t i = len; i > 0 && !close; i--)
		if (buf[i - 1] == ')')
			close = buf + i - 1;
	if (!open || !close || close < open || !size)
		return -EINVAL;
	n = (size_t)(close - open - 1);
	if (n >= size)
		n = size - 1;
	memcpy(comm, open + 1, n);
	comm[n] = '\0';
	return 0;
}

bool cg_ident_equal(const struct cg_ident *a, const struct cg_ident *b)
{
	return strcmp(a->pod_uid, b->pod_uid) == 0 &&
	       strcmp(a->container_id, b->container_id) == 0 &&
	       strcmp(a->slurm_job_id, b->slurm_job_id) == 0 &&
	       strcmp(a->systemd_unit, b->systemd_unit) == 0;
}

bool cg_ident_empty(const struct cg_ident *id)
{
	return !id->pod_uid[0] && !id->container_id[0] && !id->slurm_job_id[0] &&
	       !id->systemd_unit[0];
}
