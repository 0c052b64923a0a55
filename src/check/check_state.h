/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The flaps check's history between runs of `rdma_exporter check`
 * (docs/check.md, "Flap history"): per port and RDMA netdev the kernel's
 * flap counter (a port's link_downed, a netdev's carrier_down_count), the
 * port state, and the last flap seen with the time its FAIL is held until.
 * Pure: the state file's text in and out (check_state_parse/_format), and
 * the evaluation of one reading against the history (check_flaps_evaluate);
 * the file itself is read and written by check_main.c.
 *
 * The format, version 1: a header line, then one line per object,
 *
 *	rdma_exporter check state 1
 *	p mlx5_0/1 seen=1795000000 counter=7 state=4 flap_at=1795000000 hold_until=1795000600
 *cause=rose from=5 to=7 n eth2 seen=1795000000 counter=3
 *
 * 'p' a port (device/port), 'n' a netdev; the name with bytes outside
 * [A-Za-z0-9_.:/@+-] as %XX; then key=value fields, times in Unix seconds,
 * unknown keys skipped (a newer version's fields). Every line ends in a
 * newline: a file cut short is refused, never half read.
 */
#ifndef RDMA_EXPORTER_CHECK_STATE_H
#define RDMA_EXPORTER_CHECK_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "check/check.h"
#include "check/check_table.h"

/* Bounds: far above any node (a few dozen ports and netdevs); a bigger file
 * is refused (and a new history started) rather than read. */
#define CHECK_STATE_MAX_ENTRIES 1024
#define CHECK_STATE_MAX_BYTES	(256 * 1024)
#define CHECK_STATE_NAME_MAX	96
/* An object not seen for this long (a device removed for good) is forgotten. */
#define CHECK_STATE_FORGET_S (7 * 24 * 3600)

enum check_state_kind {
	CHECK_STATE_PORT = 'p',
	CHECK_STATE_NETDEV = 'n',
};

/* What the last flap was. */
enum check_flap_cause {
	CHECK_FLAP_NONE = 0,
	CHECK_FLAP_ROSE,  /* the counter rose: from, to are its values */
	CHECK_FLAP_BACK,  /* the counter went back (driver reload, device reset) */
	CHECK_FLAP_STATE, /* the port state changed: from, to are states */
};

struct check_state_entry {
	char kind; /* enum check_state_kind */
	char name[CHECK_STATE_NAME_MAX];
	uint64_t seen; /* the last check that saw it */
	bool has_counter;
	uint64_t counter;
	bool has_state;
	uint64_t state; /* rdma_port_state: 4 ACTIVE */
	/* the last flap, held FAIL until hold_until; cause NONE: none */
	enum check_flap_cause cause;
	uint64_t flap_at, hold_until, from, to;
};

struct check_state {
	struct check_state_entry *v;
	size_t n, cap;
};

/*
 * Parses a state file's text into s (zeroed or freed before). Returns 0,
 * -ENOMEM, -EFBIG (longer than CHECK_STATE_MAX_BYTES), -E2BIG (more than
 * CHECK_STATE_MAX_ENTRIES lines), or -EINVAL with *bad_line the 1-based
 * line that is not valid (a duplicate object included); s then holds nothing.
 */
int check_state_parse(struct check_state *s, const char *text, size_t len, size_t *bad_line);
/* Appends the text of s to out. 0 or -ENOMEM. */
int check_state_format(const struct check_state *s, struct buf *out);
void check_state_free(struct check_state *s);
/* Appends a copy of e: 0, -ENOMEM, or -E2BIG at CHECK_STATE_MAX_ENTRIES. */
int check_state_add(struct check_state *s, const struct check_state_entry *e);
/* The entry of kind and name, or NULL. */
const struct check_state_entry *check_state_find(const struct check_state *s, char kind,
						 const char *name);

/*
 * The flaps check (c->flaps): every port of the reading t (the expected
 * ones with --check.expect) and every netdev with a carrier-down counter
 * compared with its entry in prev (the last run's history; NULL or empty:
 * none), now the wall clock in Unix seconds. A flap (the counter rose or
 * went back, or the port state is not the one recorded) FAILs the object
 * until c->flap_hold_s after it was seen. Results are appended to out; next
 * gets the history to write (this run's objects, then prev's others seen
 * within CHECK_STATE_FORGET_S, at most CHECK_STATE_MAX_ENTRIES). 0 or -ENOMEM.
 */
int check_flaps_evaluate(const struct check_config *c, const struct check_state *prev, uint64_t now,
			 const struct check_table *t, struct check_results *out,
			 struct check_state *next);

#endif
