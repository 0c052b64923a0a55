// SPDX-License-Identifier: Apache-2.0
#include "cgroup_ident.h"

#include <errno.h>
#include <string.h>

#include "base/chars.h"

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

/* Offset of the last occurrence of c in s, or -1. */
static long span_rchr(struct span s, char c)
{
	for (size_t i = s.n; i > 0; i--)
		if (s.p[i - 1] == c)
			return (long)(i - 1);
	return -1;
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

/* The segments of a path in order; empty ones (a doubled '/') skipped. */
struct segs {
	struct span path;
	size_t at;
};

static bool next_seg(struct segs *it, struct span *seg)
{
	while (it->at < it->path.n) {
		size_t end = it->at;

		while (end < it->path.n && it->path.p[end] != '/')
			end++;
		*seg = (struct span){it->path.p + it->at, end - it->at};
		it->at = end + 1;
		if (seg->n)
			return true;
	}
	return false;
}

/*
 * Where a layout may start. ABS: at the cgroup root, its first segment. REL:
 * right after the leading ".." of a path read from inside a cgroup namespace:
 * the kernel prints the path from the closest common ancestor of the reader's
 * namespace root and the cgroup, which may be any ancestor, so a layout may be
 * seen from any of its levels (the exporter's own pod hides the kubepods ones).
 */
enum anchor { ABS, REL };

static bool is_qos(struct span s)
{
	return span_is(s, "burstable") || span_is(s, "besteffort");
}

/* "kubepods", "kubepods-<qos>", or either after a "-" (a slice below another). */
static bool kube_slice_base(struct span s)
{
	static const char *const bases[] = {"kubepods", "kubepods-burstable",
					    "kubepods-besteffort"};

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		size_t n = strlen(bases[i]);

		if (has_suffix(s, bases[i]) && (s.n == n || s.p[s.n - n - 1] == '-'))
			return true;
	}
	return false;
}

/*
 * systemd driver: kubepods.slice/kubepods-<qos>.slice/kubepods-<qos>-pod<uid>.slice
 * (guaranteed: kubepods.slice/kubepods-pod<uid>.slice), or the same below another
 * root slice (--cgroup-root=/kubelet.slice: kubelet.slice/kubelet-kubepods.slice/...).
 * A slice's name is its parent's plus "-<word>" (systemd.slice(5)), so a chain
 * that starts with a one-word slice at the root is where its names say it is.
 */
static bool kube_systemd(struct segs it, enum anchor a, struct cg_ident *id)
{
	struct span seg, base;
	long dash;

	if (!next_seg(&it, &seg) || !has_suffix(seg, ".slice"))
		return false;
	base = (struct span){seg.p, seg.n - strlen(".slice")};
	if (a == ABS && span_rchr(base, '-') >= 0)
		return false;
	for (;;) {
		size_t parent = base.n;

		dash = span_rchr(base, '-');
		if (dash >= 0 &&
		    has_prefix((struct span){base.p + dash + 1, base.n - (size_t)dash - 1}, "pod"))
			break;
		/* the next slice: exactly this one's name plus "-<word>" */
		if (!next_seg(&it, &seg) || !has_suffix(seg, ".slice") ||
		    seg.n <= parent + 1 + strlen(".slice") || memcmp(seg.p, base.p, parent) ||
		    seg.p[parent] != '-')
			return false;
		base = (struct span){seg.p, seg.n - strlen(".slice")};
		if (span_rchr(base, '-') != (long)parent)
			return false;
	}
	if (!kube_slice_base((struct span){base.p, (size_t)dash}) ||
	    !pod_uid_from((struct span){base.p + dash + 4, base.n - (size_t)dash - 4}, id))
		return false;
	if (next_seg(&it, &seg))
		container_from(seg, id);
	return true;
}

/* cgroupfs driver: kubepods[/burstable|/besteffort]/pod<uid>/<container>. */
static bool kube_cgroupfs(struct segs it, enum anchor a, struct cg_ident *id)
{
	struct span seg;

	if (!next_seg(&it, &seg))
		return false;
	if (span_is(seg, "kubepods")) {
		if (!next_seg(&it, &seg))
			return false;
	} else if (a == ABS) {
		return false;
	}
	if (is_qos(seg) && !next_seg(&it, &seg))
		return false;
	if (!has_prefix(seg, "pod") || !pod_uid_from((struct span){seg.p + 3, seg.n - 3}, id))
		return false;
	if (next_seg(&it, &seg))
		container_from(seg, id);
	return true;
}

/* A Kubernetes node's root, or one nested in a Docker container (kind): that
 * container's cgroup, cgroupfs (/docker/<id>) or systemd driver
 * (/system.slice/docker-<id>.scope), both made by the Docker daemon. */
static bool kube_layout(struct segs it, enum anchor a, struct cg_ident *id)
{
	struct span seg, cid;

	if (kube_systemd(it, a, id) || kube_cgroupfs(it, a, id))
		return true;
	if (a == REL || !next_seg(&it, &seg))
		return false;
	if (span_is(seg, "docker")) {
		if (!next_seg(&it, &cid) || cid.n != CG_CONTAINER_ID_MAX - 1 || !all_of(cid, hex))
			return false;
	} else if (span_is(seg, "system.slice")) {
		if (!next_seg(&it, &cid) || !has_prefix(cid, "docker-") ||
		    cid.n != strlen("docker-") + CG_CONTAINER_ID_MAX - 1 + strlen(".scope") ||
		    !has_suffix(cid, ".scope") ||
		    !all_of((struct span){cid.p + 7, CG_CONTAINER_ID_MAX - 1}, hex))
			return false;
	} else {
		return false;
	}
	return kube_systemd(it, ABS, id) || kube_cgroupfs(it, ABS, id);
}

static bool job_from(struct segs *it, struct cg_ident *id)
{
	struct span seg, n;

	if (!next_seg(it, &seg) || !has_prefix(seg, "job_"))
		return false;
	n = (struct span){seg.p + 4, seg.n - 4};
	return all_of(n, "0123456789") && put(id->slurm_job_id, sizeof(id->slurm_job_id), n);
}

/*
 * Slurm's cgroup/v2 plugin: system.slice/slurmstepd.scope/job_<id>/step_<n>/...
 * (<node>_slurmstepd.scope with multiple slurmd); cgroup/v1:
 * slurm/uid_<uid>/job_<id>/step_<n>/... (slurm_<node> with multiple slurmd).
 */
static bool slurm_layout(struct segs it, enum anchor a, struct cg_ident *id)
{
	struct span seg;

	if (!next_seg(&it, &seg))
		return false;
	if (span_is(seg, "slurm") || (has_prefix(seg, "slurm_") && seg.n > strlen("slurm_"))) {
		if (!next_seg(&it, &seg) || !has_prefix(seg, "uid_") ||
		    !all_of((struct span){seg.p + 4, seg.n - 4}, "0123456789") || seg.n == 4)
			return false;
		return job_from(&it, id);
	}
	if (span_is(seg, "system.slice")) {
		if (!next_seg(&it, &seg))
			return false;
	} else if (a == ABS) {
		return false;
	}
	if (!span_is(seg, "slurmstepd.scope") && !has_suffix(seg, "_slurmstepd.scope"))
		return false;
	return job_from(&it, id);
}

/* Unit names: systemd's character set, '\' for its \xNN escapes. */
static const char unit_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				 "0123456789:_.-@\\";

/* The first <name>.service segment. */
static void unit_from(struct segs it, struct cg_ident *id)
{
	struct span seg;

	while (next_seg(&it, &seg))
		if (seg.n > strlen(".service") && has_suffix(seg, ".service") &&
		    all_of(seg, unit_chars)) {
			put(id->systemd_unit, sizeof(id->systemd_unit), seg);
			return;
		}
}

/*
 * Any user can make cgroups below its own user@<uid>.service (systemd
 * delegates that subtree), named as it likes: a path names a workload only
 * when the whole layout, from its anchor, is one that the kubelet, the
 * container runtime or slurmstepd make, and never when its first visible
 * segment is user.slice or a user-<uid>.slice.
 */
static void parse_path(struct span path, struct cg_ident *id)
{
	struct segs it = {path, 1}, from;
	enum anchor a = ABS;
	struct span seg;

	for (;;) {
		from = it;
		if (!next_seg(&it, &seg))
			return;
		if (!span_is(seg, ".."))
			break;
		a = REL;
	}
	if (span_is(seg, "user.slice") || (has_prefix(seg, "user-") && has_suffix(seg, ".slice")))
		return;
	if (kube_layout(from, a, id) || slurm_layout(from, a, id))
		return;
	memset(id, 0, sizeof(*id));
	unit_from(from, id);
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
	if (p == end || !ascii_is_digit(*p))
		return -EINVAL;
	for (; p < end && ascii_is_digit(*p); p++) {
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
