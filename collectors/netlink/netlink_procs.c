// SPDX-License-Identifier: Apache-2.0
/*
 * The netlink collector's per-poll table of processes: see netlink_procs.h.
 */
#include "netlink_procs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"

void nl_procs_init(struct nl_procs *pc, const char *proc_root, nl_comm_fn comm_of, void *comm_data,
		   bool attribution)
{
	memset(pc, 0, sizeof(*pc));
	snprintf(pc->proc_root, sizeof(pc->proc_root), "%s", proc_root);
	pc->comm_of = comm_of;
	pc->comm_data = comm_data;
	pc->attribution = attribution;
}

void nl_procs_release(struct nl_procs *pc)
{
	free(pc->comms);
	free(pc->prev);
	pc->comms = pc->prev = NULL;
	pc->cap_comms = pc->cap_prev = pc->n_comms = 0;
}

static int read_comm(uint32_t pid, char *comm, size_t size, void *data)
{
	const struct nl_procs *pc = data;
	char path[300];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%u/comm", pc->proc_root, pid);
	fd = open_regular_at(AT_FDCWD, path);
	if (fd < 0)
		return fd;
	n = read(fd, comm, size - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ENODATA;
	if (comm[n - 1] == '\n')
		n--;
	comm[n] = '\0';
	return 0;
}

/* Reads <proc_root>/<pid>/<name> into buf (NUL-terminated); its length or -errno. */
static ssize_t read_proc(const struct nl_procs *pc, uint32_t pid, const char *name, char *buf,
			 size_t size)
{
	char path[300];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%u/%s", pc->proc_root, pid, name);
	fd = open_regular_at(AT_FDCWD, path);
	if (fd < 0)
		return fd;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

void nl_procs_next_poll(struct nl_procs *pc)
{
	struct nl_proc_entry *t = pc->prev;
	size_t cap = pc->cap_prev;

	pc->prev = pc->comms;
	pc->cap_prev = pc->cap_comms;
	pc->comms = t;
	pc->cap_comms = cap;
	pc->comm_gen++;
	pc->n_comms = 0;
}

/* Bound of the table: more processes with RDMA resources than this get
 * comm "unknown" and no workload rather than unbounded memory. */
#define PROC_CACHE_MAX (1u << 15)

static int comm_cache_grow(struct nl_procs *pc)
{
	struct nl_proc_entry *old = pc->comms, *n;
	size_t ncap = pc->cap_comms ? pc->cap_comms * 2 : 256;

	if (ncap > PROC_CACHE_MAX)
		return -ENOSPC;
	n = calloc(ncap, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < pc->cap_comms; i++) {
		size_t j;

		if (old[i].gen != pc->comm_gen || !old[i].pid)
			continue;
		for (j = old[i].pid & (ncap - 1); n[j].pid; j = (j + 1) & (ncap - 1))
			;
		n[j] = old[i];
	}
	free(old);
	pc->comms = n;
	pc->cap_comms = ncap;
	return 0;
}

/* The previous poll's entry of pid, or NULL. */
static const struct nl_proc_entry *prev_entry(const struct nl_procs *pc, uint32_t pid)
{
	if (!pc->cap_prev)
		return NULL;
	for (size_t i = pid & (pc->cap_prev - 1);; i = (i + 1) & (pc->cap_prev - 1)) {
		const struct nl_proc_entry *e = &pc->prev[i];

		if (e->gen != pc->comm_gen - 1 || !e->pid)
			return NULL;
		if (e->pid == pid)
			return e;
	}
}

/* comm and start time of e's process from its stat file; 0 or -errno. */
static int read_stat(const struct nl_procs *pc, struct nl_proc_entry *e)
{
	char buf[1024];
	ssize_t n = read_proc(pc, e->pid, "stat", buf, sizeof(buf));

	e->stat_read = true;
	if (n < 0)
		e->stat_err = (int)n;
	else if (cg_stat_starttime(buf, (size_t)n, &e->start) < 0 ||
		 cg_stat_comm(buf, (size_t)n, e->comm, sizeof(e->comm)) < 0)
		e->stat_err = -EINVAL;
	return e->stat_err;
}

/* This poll's entry of pid, created (with its comm) on first sight. */
static int proc_entry(struct nl_procs *pc, uint32_t pid, struct nl_proc_entry **out)
{
	struct nl_proc_entry *e;
	size_t i;
	int r;

	if ((pc->n_comms + 1) * 2 > pc->cap_comms && (r = comm_cache_grow(pc)) < 0)
		return r;
	for (i = pid & (pc->cap_comms - 1);; i = (i + 1) & (pc->cap_comms - 1)) {
		e = &pc->comms[i];
		if (e->gen != pc->comm_gen || !e->pid)
			break;
		if (e->pid == pid) {
			*out = e;
			return 0;
		}
	}
	memset(e, 0, sizeof(*e));
	e->pid = pid;
	e->gen = pc->comm_gen;
	if (pc->comm_of)
		e->err = pc->comm_of(pid, e->comm, sizeof(e->comm), pc->comm_data);
	else if (pc->attribution)
		e->err = read_stat(pc, e); /* comm and start time in one read */
	else
		e->err = read_comm(pid, e->comm, sizeof(e->comm), pc);
	pc->n_comms++;
	*out = e;
	return 0;
}

int nl_procs_comm(uint32_t pid, char *comm, size_t size, void *data)
{
	struct nl_proc_entry *e;
	int r = proc_entry(data, pid, &e);

	if (r < 0)
		return r;
	snprintf(comm, size, "%s", e->comm);
	return e->err;
}

/* The workload of e's process: the previous poll's when its start time is
 * the same (a re-used pid is another process), else from its cgroup file. */
static void fill_ident(struct nl_procs *pc, struct nl_proc_entry *e)
{
	const struct nl_proc_entry *p;
	/* A v1 file has a line per hierarchy; a longer one is cut, and its
	 * cut last line ignored by the parser. */
	char buf[8192];
	ssize_t n;

	e->id_done = true;
	if (!e->stat_read)
		read_stat(pc, e);
	if (e->stat_err) {
		e->id_err = e->stat_err;
		return;
	}
	p = prev_entry(pc, e->pid);
	if (p && p->id_done && !p->id_err && p->start == e->start) {
		e->id = p->id;
		return;
	}
	n = read_proc(pc, e->pid, "cgroup", buf, sizeof(buf));
	if (n < 0) {
		e->id_err = (int)n;
		return;
	}
	cg_ident_parse(buf, (size_t)n, &e->id);
}

int nl_procs_ident(uint32_t pid, struct cg_ident *id, void *data)
{
	struct nl_procs *pc = data;
	struct nl_proc_entry *e;
	int r = proc_entry(pc, pid, &e);

	if (r < 0)
		return r;
	if (!e->id_done)
		fill_ident(pc, e);
	*id = e->id;
	return e->id_err;
}

int nl_procs_pid_ns(const struct nl_procs *pc, unsigned long long *ino)
{
	char path[300], link[64];
	char tail;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/self/ns/pid", pc->proc_root);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return n < 0 ? -errno : -ENODATA;
	link[n] = '\0';
	if (sscanf(link, "pid:[%llu%c", ino, &tail) != 2 || tail != ']')
		return -EINVAL;
	return 0;
}
