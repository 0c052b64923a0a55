/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The /proc side of the netlink collector's process attribution: the name
 * (comm) and workload (cgroup_ident.h) of each pid that owns RDMA resources,
 * read from <proc_root>/<pid>/{comm,stat,cgroup} once per poll, not once per
 * process and device. The previous poll's table is kept: a pid with the same
 * start time is the same process, whose cgroup is not read again; a pid that
 * left the dumps is forgotten with it. At most PROC_CACHE_MAX processes
 * (more get comm "unknown" and no workload rather than unbounded memory).
 *
 * I/O behind the proc_root seam (tests point it at a tree of their own) and
 * the comm_of seam; nothing here logs. The collector owns one struct
 * nl_procs inside its state and uses it from its poll thread only.
 */
#ifndef RDMA_EXPORTER_NETLINK_PROCS_H
#define RDMA_EXPORTER_NETLINK_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup_ident.h"
#include "netlink_parse.h"

/* One pid of a poll. Entries of older polls have another gen. */
struct nl_proc_entry {
	uint32_t pid, gen;
	int err;
	char comm[NL_NAME_MAX];
	bool id_done, stat_read;
	int id_err, stat_err;
	uint64_t start;
	struct cg_ident id;
};

struct nl_procs {
	char proc_root[256];
	nl_comm_fn comm_of; /* NULL: read <proc_root>/<pid>/comm (or stat) */
	void *comm_data;
	bool attribution; /* comm and start time from stat, for the workload */
	/* open addressing by pid, capacities powers of 2 */
	struct nl_proc_entry *comms, *prev;
	size_t cap_comms, n_comms, cap_prev;
	uint32_t comm_gen;
};

/* Sets up an empty table (nothing allocated until the first pid). */
void nl_procs_init(struct nl_procs *pc, const char *proc_root, nl_comm_fn comm_of, void *comm_data,
		   bool attribution);
/* Frees the tables; pc may be zeroed (never initialised). */
void nl_procs_release(struct nl_procs *pc);

/* A new poll: this poll's table becomes the previous one. */
void nl_procs_next_poll(struct nl_procs *pc);

/* nl_comm_fn over the per-poll cache (data: the struct nl_procs), falling
 * back to the comm_of seam or /proc. */
int nl_procs_comm(uint32_t pid, char *comm, size_t size, void *data);
/* nl_ident_fn over the cache: the workload of pid, 0 or -errno (none). */
int nl_procs_ident(uint32_t pid, struct cg_ident *id, void *data);

/* The inode of <proc_root>/self/ns/pid ("pid:[N]"): 0 and *ino, or -errno
 * (-EINVAL when the link does not read as one). */
int nl_procs_pid_ns(const struct nl_procs *pc, unsigned long long *ino);

#endif
