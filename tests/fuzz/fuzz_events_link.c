// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the events collector's rtnetlink link message parser
 * (ev_parse_link, events_parse.c) on the first message of the input when its
 * framing holds (as the listener checks before handing a message on), and the
 * transition table fed what it accepts.
 *
 * Invariants: 0, -ENOMSG or -EBADMSG; on error the output is zero; a name is
 * NUL-terminated inside EV_IFNAMSIZ; carrier 0 or 1; the link state is
 * IFF_LOWER_UP; a tracked netdev's count never goes down and grows by exactly what
 * ev_netdev_observe returns; the same message twice counts nothing the
 * second time.
 */
#include <errno.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/if.h>

#include "events_parse.h"
#include "fuzz.h"
#include "fuzz_nl.h"

static void check_table(const struct ev_link *l)
{
	static struct ev_table t;
	struct ev_netdev *n;
	uint64_t before, added;

	memset(&t, 0, sizeof(t));
	if (ev_netdev_track(&t, l->name) != 0)
		return;
	n = ev_netdev_find(&t, l->name);
	FUZZ_CHECK(n != NULL);
	before = n->changes;
	added = ev_netdev_observe(&t, l);
	FUZZ_CHECK(n->changes == before + added);
	FUZZ_CHECK(ev_netdev_observe(&t, l) == 0);
	FUZZ_CHECK(l->deleted ? n->carrier == -1 : n->carrier == ev_link_up(l));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nlmsghdr *nlh;
	struct ev_link l;
	void *buf;
	int r;

	nlh = fuzz_nlmsg_copy(data, size);
	if (!nlh)
		return 0;
	buf = nlh;
	memset(&l, 0xa5, sizeof(l));
	r = ev_parse_link(nlh, &l);
	FUZZ_CHECK(r == 0 || r == -ENOMSG || r == -EBADMSG);
	if (r < 0) {
		FUZZ_CHECK(fuzz_all_zero(&l, sizeof(l)));
		free(buf);
		return 0;
	}
	FUZZ_CHECK(memchr(l.name, '\0', sizeof(l.name)) != NULL);
	FUZZ_CHECK(l.carrier <= 1);
	FUZZ_CHECK(ev_link_up(&l) == !!(l.flags & IFF_LOWER_UP));
	FUZZ_CHECK(l.have_counts || (!l.up_count && !l.down_count));
	if (l.name[0])
		check_table(&l);
	free(buf);
	return 0;
}
