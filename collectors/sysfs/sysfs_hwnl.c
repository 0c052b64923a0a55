// SPDX-License-Identifier: Apache-2.0
/*
 * hw counters over RDMA netlink for the sysfs collector: see sysfs_hwnl.h.
 * One socket for the collector's life (opened on first use, reopened by
 * nl_conn after a failed request).
 */
#include "sysfs_hwnl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_netlink.h>

#include "base/clock.h"
#include "rdmanl/nldev_parse.h"
#include "rdmanl/sysfs_names.h"

struct sysfs_hwnl {
	struct nl_conn *conn; /* NULL: no netlink path */
	int timeout_ms;
	struct nl_stat_list stats; /* the last reply */
	uint64_t requests;
};

struct sysfs_hwnl *sysfs_hwnl_new(nl_transport_open_fn open, void *open_data, int timeout_ms)
{
	struct sysfs_hwnl *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->timeout_ms = timeout_ms > 0 ? timeout_ms : 1000;
	if (open) {
		h->conn = nl_conn_new(open, open_data);
		if (!h->conn) {
			free(h);
			return NULL;
		}
	}
	return h;
}

void sysfs_hwnl_free(struct sysfs_hwnl *h)
{
	if (!h)
		return;
	nl_conn_free(h->conn);
	nl_stat_list_free(&h->stats);
	free(h);
}

uint64_t sysfs_hwnl_requests(const struct sysfs_hwnl *h)
{
	return h ? h->requests : 0;
}

static void reset_stat_list(void *data)
{
	struct nl_stat_list *l = data;

	l->n = 0;
	l->bad_objects = 0;
}

static void reset_dev_list(void *data)
{
	struct nl_dev_list *l = data;

	l->n = 0;
	l->bad_objects = 0;
}

/* One request; a dump interrupted by a change (-EINTR) is asked once more. */
static int request(struct sysfs_hwnl *h, uint16_t cmd, uint16_t flags, uint32_t dev_index,
		   uint32_t port, int (*on_msg)(const struct nlmsghdr *, void *), void *data,
		   void (*on_reset)(void *))
{
	uint64_t bad = 0;
	int r = -EINTR;

	for (int attempt = 0; attempt < 2 && r == -EINTR; attempt++) {
		if (attempt)
			on_reset(data);
		h->requests++;
		r = nl_conn_request(h->conn, cmd, flags, dev_index, port, on_msg, data, on_reset,
				    clock_mono_ms() + (uint64_t)h->timeout_ms, &bad);
	}
	return r;
}

static int find_dev_index(struct sysfs_hwnl *h, const char *name, uint32_t *index)
{
	struct nl_dev_list l = {0};
	int r;

	r = request(h, RDMA_NLDEV_CMD_GET, NLM_F_DUMP, NL_NO_DEVICE, 0, nl_on_dev_msg, &l,
		    reset_dev_list);
	if (r == 0) {
		r = -ENODEV;
		for (size_t i = 0; i < l.n; i++)
			if (strcmp(l.v[i].name, name) == 0) {
				*index = l.v[i].index;
				r = 0;
				break;
			}
	}
	nl_dev_list_free(&l);
	return r;
}

static int stat_get(struct sysfs_hwnl *h, uint32_t dev_index, uint32_t port)
{
	int r;

	reset_stat_list(&h->stats);
	r = request(h, RDMA_NLDEV_CMD_STAT_GET, 0, dev_index, port, nl_on_stat_msg, &h->stats,
		    reset_stat_list);
	if (r == 0 && h->stats.port != port)
		r = -EPROTO;
	return r;
}

static bool is_hw_counter(const struct sysfs_counter *c)
{
	return c->source == SYSFS_SRC_HW_COUNTERS;
}

int sysfs_hwnl_attach(struct sysfs_hwnl *h, struct sysfs_device *dev, struct sysfs_port *p,
		      const char **missing)
{
	size_t n_hw = 0;
	int r;

	p->hw_nl = false;
	*missing = NULL;
	if (!h || !h->conn)
		return -EOPNOTSUPP;
	for (size_t i = 0; i < p->n_counters; i++)
		n_hw += is_hw_counter(&p->counters[i]);
	if (!n_hw)
		return -EOPNOTSUPP;
	r = find_dev_index(h, dev->name, &dev->nl_index);
	if (r < 0)
		return r;
	r = stat_get(h, dev->nl_index, p->num);
	if (r < 0)
		return r;
	/* Every file must have its entry: the reply may have more (optional
	 * counters are netlink only), never fewer. */
	for (size_t i = 0; i < p->n_counters; i++) {
		struct sysfs_counter *c = &p->counters[i];
		size_t k = 0;

		if (!is_hw_counter(c))
			continue;
		while (k < h->stats.n && strcmp(h->stats.v[k].name, c->file.name) != 0)
			k++;
		if (k == h->stats.n) {
			*missing = c->file.name;
			return -ENOENT;
		}
		c->nl_pos = (uint32_t)k;
	}
	p->hw_nl = true;
	return 0;
}

int sysfs_hwnl_poll(struct sysfs_hwnl *h, const struct sysfs_device *dev,
		    const struct sysfs_port *p)
{
	int r;

	if (!h || !h->conn || !p->hw_nl)
		return -EOPNOTSUPP;
	r = stat_get(h, dev->nl_index, p->num);
	if (r < 0)
		return r;
	/* The driver's list is fixed, but check the names the positions
	 * were taken from: a device re-registered under the same index with
	 * another driver must not shift values onto other counters. */
	for (size_t i = 0; i < p->n_counters; i++) {
		const struct sysfs_counter *c = &p->counters[i];

		if (!is_hw_counter(c))
			continue;
		if (c->nl_pos >= h->stats.n ||
		    strcmp(h->stats.v[c->nl_pos].name, c->file.name) != 0)
			return -ESTALE;
	}
	return 0;
}

uint64_t sysfs_hwnl_value(const struct sysfs_hwnl *h, const struct sysfs_counter *c)
{
	return h->stats.v[c->nl_pos].value;
}
