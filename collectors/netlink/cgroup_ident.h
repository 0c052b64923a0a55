/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Workload identity of a process from its /proc/<pid>/cgroup: the
 * Kubernetes pod and container, the Slurm job, or the systemd service that
 * the cgroup path names. Pure: bytes in, a struct out; no I/O, no logging.
 *
 * The file is outside input (any process can be in any cgroup an
 * administrator created), so every label is bounded and made of a strict
 * character set; a part that does not fit is left out, never cut.
 */
#ifndef RDMA_EXPORTER_CGROUP_IDENT_H
#define RDMA_EXPORTER_CGROUP_IDENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sizes with the NUL. A pod UID is a UUID (36), or the 32-hex config hash
 * of a static pod; a container ID 64 hex digits; a Slurm job ID a u32 in
 * practice; a unit name is at most 255 bytes (UNIT_NAME_MAX), but the
 * label keeps 128 and drops longer names. */
#define CG_POD_UID_MAX	    37
#define CG_CONTAINER_ID_MAX 65
#define CG_SLURM_JOB_MAX    21
#define CG_UNIT_MAX	    128

struct cg_ident {
	char pod_uid[CG_POD_UID_MAX];
	char container_id[CG_CONTAINER_ID_MAX];
	char slurm_job_id[CG_SLURM_JOB_MAX];
	char systemd_unit[CG_UNIT_MAX];
};

/*
 * Parses the content of /proc/<pid>/cgroup (len bytes, not NUL-terminated,
 * may hold any byte). Only complete lines count: a last line without its
 * newline was cut by the reader and is ignored. Of the lines, the cgroup v2
 * one ("0::/path") is read first, then the v1 name=systemd, then memory,
 * then the others in file order; the first that names a pod or a Slurm job
 * wins, else the first that names a service. Returns 1 when some identity
 * was found, 0 when none (out zeroed).
 *
 * Rules (docs/workloads.md): a pod or a job is named only by a whole
 * layout that the kubelet, the container runtime or slurmstepd make,
 * anchored at the cgroup root, never by a name anywhere in the path (any
 * user can make cgroups with any name below its user@<uid>.service).
 *   pod_uid       systemd driver: a chain of slices from a one-word root
 *                 slice, each named by its parent plus "-<word>", ending
 *                 in [<prefix>-]kubepods[-<qos>]-pod<uid>.slice ('_' read
 *                 as '-'); cgroupfs driver: kubepods[/<qos>]/pod<uid>.
 *                 Also nested in a Docker container's cgroup (kind):
 *                 /docker/<id>/... or /system.slice/docker-<id>.scope/...
 *   container_id  the segment right below the pod one: <64hex> (cgroupfs),
 *                 cri-containerd-<id>.scope, crio-<id>.scope,
 *                 docker-<id>.scope, cri-dockerd-<id>.scope.
 *   slurm_job_id  /slurm[_<node>]/uid_<n>/job_<n>/... (v1) or
 *                 /system.slice/[<node>_]slurmstepd.scope/job_<n>/... (v2).
 *   systemd_unit  the first <name>.service segment of a path that names no
 *                 pod or job: system services.
 * Nothing at all for a path whose first visible segment is user.slice or
 * user-<uid>.slice. A path read from inside a cgroup namespace starts with
 * "/.." (it runs from the common ancestor of the reader's namespace root
 * and the cgroup): after the "..", a layout may be seen from any of its
 * levels (kubepods-<qos>.slice/..., <qos>/pod<uid>/...,
 * [<node>_]slurmstepd.scope/job_<n>/...), never from an arbitrary segment.
 */
int cg_ident_parse(const char *buf, size_t len, struct cg_ident *out);

/* The start time (field 22, clock ticks since boot) from the content of
 * /proc/<pid>/stat; the comm field may hold spaces and parentheses.
 * Returns 0, or -EINVAL. */
int cg_stat_starttime(const char *buf, size_t len, uint64_t *start);

/* The comm field of /proc/<pid>/stat (between the first '(' and the last
 * ')', cut to size - 1 bytes), as /proc/<pid>/comm has it. 0 or -EINVAL. */
int cg_stat_comm(const char *buf, size_t len, char *comm, size_t size);

/* Whether two identities are equal; cg_ident_empty: no label applies. */
bool cg_ident_equal(const struct cg_ident *a, const struct cg_ident *b);
bool cg_ident_empty(const struct cg_ident *id);

#endif
