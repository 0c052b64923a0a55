// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the devlink collector's health reporter parser and table
 * (devlink_parse.c). The input is one reply datagram, fed as the collector
 * feeds it (nl_reply_feed() with the data messages of type 0x1d, the family
 * id of the corpus, going to dl_table_on_msg()); its first message, when its
 * framing holds, also goes to dl_parse_reporter() on its own.
 *
 * Invariants: the feed ends in 1, 0 or an errno; the table stays within its
 * bounds, every row with non-empty NUL-terminated names; a refused message
 * leaves the reporter zeroed; the PCI address check agrees with its pattern.
 */
#include <errno.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "devlink_parse.h"
#include "fuzz.h"
#include "fuzz_nl.h"
#include "netlink_parse.h"

static int terminated(const char *s, size_t size)
{
	return s[0] && memchr(s, '\0', size) != NULL;
}

static void check_table(const struct dl_table *t)
{
	FUZZ_CHECK(t->n <= DL_ROWS_MAX);
	FUZZ_CHECK(t->handles <= DL_HANDLES_MAX);
	FUZZ_CHECK(t->handles <= t->n);
	for (unsigned i = 0; i < t->n; i++) {
		FUZZ_CHECK(terminated(t->rows[i].bus, DL_BUS_MAX));
		FUZZ_CHECK(terminated(t->rows[i].dev, DL_DEV_MAX));
		FUZZ_CHECK(terminated(t->rows[i].name, DL_REPORTER_MAX));
	}
}

static void check_first(const struct nlmsghdr *nlh, size_t size)
{
	static const struct dl_reporter zero;
	struct dl_reporter r;
	int rc;

	if (!fuzz_nlmsg_framed(nlh, size))
		return;
	memset(&r, 0xa5, sizeof(r));
	rc = dl_parse_reporter(nlh, &r);
	FUZZ_CHECK(rc == 0 || rc == -EBADMSG);
	if (rc < 0)
		FUZZ_CHECK(memcmp(&r, &zero, sizeof(r)) == 0);
	else
		FUZZ_CHECK(terminated(r.name, sizeof(r.name)) && terminated(r.dev, sizeof(r.dev)));
	if (dl_is_pci_address(r.dev, strlen(r.dev)))
		FUZZ_CHECK(strlen(r.dev) >= 12 && strlen(r.dev) <= 16 &&
			   r.dev[strlen(r.dev) - 2] == '.');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dl_table *t = calloc(1, sizeof(*t));
	struct nl_reply rep = {.type = 0x1d, .on_msg = dl_table_on_msg};
	void *buf = malloc(size ? size : 1);
	int rc;

	if (!t || !buf) {
		free(t);
		free(buf);
		return 0;
	}
	/* netlink buffers are aligned: a malloc'd copy of exactly the input */
	memcpy(buf, data, size);
	dl_table_reset(t);
	rep.data = t;
	rc = nl_reply_feed(&rep, buf, size);
	FUZZ_CHECK(rc == 0 || rc == 1 || (rc < 0 && rc >= -4095));
	check_table(t);
	check_first(buf, size);
	free(buf);
	free(t);
	return 0;
}
