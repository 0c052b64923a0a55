// SPDX-License-Identifier: Apache-2.0
#include "devlink_parse.h"

#include <errno.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>

#include "base/chars.h"
#include "rdmanl/genl.h"

int dl_build_reporter_dump(void *buf, size_t size, uint16_t family, uint32_t seq)
{
	struct nlmsghdr *nlh =
		genl_put_genl_request(buf, size, family, NLM_F_DUMP, seq,
				      DEVLINK_CMD_HEALTH_REPORTER_GET, DEVLINK_GENL_VERSION);

	return nlh ? (int)nlh->nlmsg_len : -EMSGSIZE;
}

#define DL_ATTRS (DEVLINK_ATTR_PORT_INDEX + 1)
/* The nest lies far above the handle: a table of its own, not 115 slots. */
#define DL_TOP_MAX (DEVLINK_ATTR_HEALTH_REPORTER + 1)
#define DL_HR_MAX  (DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT + 1)

static const struct genl_attr_policy top_policy[DL_TOP_MAX] = {
	[DEVLINK_ATTR_BUS_NAME] = {MNL_TYPE_NUL_STRING, 0},
	[DEVLINK_ATTR_DEV_NAME] = {MNL_TYPE_NUL_STRING, 0},
	[DEVLINK_ATTR_PORT_INDEX] = {MNL_TYPE_U32, 0},
	[DEVLINK_ATTR_HEALTH_REPORTER] = {MNL_TYPE_NESTED, 0},
};

/* Counters are nla_put_u64_64bit() (DEVLINK_ATTR_PAD fillers are skipped). */
static const struct genl_attr_policy hr_policy[DL_HR_MAX] = {
	[DEVLINK_ATTR_HEALTH_REPORTER_NAME] = {MNL_TYPE_NUL_STRING, 0},
	[DEVLINK_ATTR_HEALTH_REPORTER_STATE] = {MNL_TYPE_U8, 0},
	[DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT] = {MNL_TYPE_U64, 0},
	[DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT] = {MNL_TYPE_U64, 0},
};

/* Copies a validated NUL-terminated string attribute: 0, or -EBADMSG when
 * it is empty or does not fit. */
static int copy_name(const struct nlattr *a, char *dst, size_t size)
{
	const char *s = mnl_attr_get_str(a);
	size_t len = strnlen(s, mnl_attr_get_payload_len(a));

	if (!len || len >= size)
		return -EBADMSG;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

int dl_parse_reporter(const struct nlmsghdr *nlh, struct dl_reporter *out)
{
	const struct nlattr *tb[DL_TOP_MAX], *hr[DL_HR_MAX];
	struct dl_reporter r;

	memset(out, 0, sizeof(*out));
	memset(&r, 0, sizeof(r));
	if (genl_msg_cmd(nlh) != DEVLINK_CMD_HEALTH_REPORTER_GET ||
	    genl_parse_msg_attrs(nlh, GENL_HDRLEN, top_policy, DL_TOP_MAX, tb) < 0)
		return -EBADMSG;
	if (!tb[DEVLINK_ATTR_BUS_NAME] || !tb[DEVLINK_ATTR_DEV_NAME] ||
	    !tb[DEVLINK_ATTR_HEALTH_REPORTER])
		return -EBADMSG;
	if (genl_parse_nest(tb[DEVLINK_ATTR_HEALTH_REPORTER], hr_policy, DL_HR_MAX, hr) < 0)
		return -EBADMSG;
	if (!hr[DEVLINK_ATTR_HEALTH_REPORTER_NAME] || !hr[DEVLINK_ATTR_HEALTH_REPORTER_STATE] ||
	    !hr[DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT] ||
	    !hr[DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT])
		return -EBADMSG;
	if (copy_name(tb[DEVLINK_ATTR_BUS_NAME], r.bus, sizeof(r.bus)) < 0 ||
	    copy_name(tb[DEVLINK_ATTR_DEV_NAME], r.dev, sizeof(r.dev)) < 0 ||
	    copy_name(hr[DEVLINK_ATTR_HEALTH_REPORTER_NAME], r.name, sizeof(r.name)) < 0)
		return -EBADMSG;
	r.port = tb[DEVLINK_ATTR_PORT_INDEX] != NULL;
	r.state = mnl_attr_get_u8(hr[DEVLINK_ATTR_HEALTH_REPORTER_STATE]);
	r.errors = mnl_attr_get_u64(hr[DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT]);
	r.recoveries = mnl_attr_get_u64(hr[DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT]);
	*out = r;
	return 0;
}

void dl_table_reset(struct dl_table *t)
{
	t->n = 0;
	t->handles = 0;
	t->bad = 0;
	t->dropped = 0;
}

static bool same_handle(const struct dl_reporter *a, const struct dl_reporter *b)
{
	return strcmp(a->bus, b->bus) == 0 && strcmp(a->dev, b->dev) == 0;
}

/* Saturating: a sum of two ports' counters never wraps to a small number. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int dl_table_add(struct dl_table *t, const struct dl_reporter *r)
{
	unsigned of_handle = 0;

	for (unsigned i = 0; i < t->n; i++) {
		struct dl_reporter *row = &t->rows[i];

		if (!same_handle(row, r))
			continue;
		of_handle++;
		if (strcmp(row->name, r->name) == 0) {
			row->errors = add_sat(row->errors, r->errors);
			row->recoveries = add_sat(row->recoveries, r->recoveries);
			row->state = r->state > row->state ? r->state : row->state;
			row->port = row->port || r->port;
			return 0;
		}
	}
	if (t->n >= DL_ROWS_MAX || of_handle >= DL_REPORTERS_PER_HANDLE ||
	    (!of_handle && t->handles >= DL_HANDLES_MAX)) {
		t->dropped++;
		return -ENOSPC;
	}
	t->handles += !of_handle;
	t->rows[t->n++] = *r;
	return 0;
}

int dl_table_on_msg(const struct nlmsghdr *nlh, void *table)
{
	struct dl_table *t = table;
	struct dl_reporter r;

	if (dl_parse_reporter(nlh, &r) < 0) {
		t->bad++;
		return 0;
	}
	dl_table_add(t, &r);
	return 0;
}

static bool hex_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!ascii_is_lower_hex(s[i]))
			return false;
	return true;
}

bool dl_is_pci_address(const char *s, size_t len)
{
	/* Domain of 4 hex digits (pci_name() prints %04x; a domain above
	 * 0xffff, as VMD makes, gives more), then ":BB:DD.F". */
	if (len < 12 || len > 16)
		return false;
	return hex_digits(s, len - 8) && s[len - 8] == ':' && hex_digits(s + len - 7, 2) &&
	       s[len - 5] == ':' && hex_digits(s + len - 4, 2) && s[len - 2] == '.' &&
	       s[len - 1] >= '0' && s[len - 1] <= '7';
}
