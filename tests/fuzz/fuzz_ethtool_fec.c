// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the ethtool FEC reply parser and its samples
 * (ethtool_fec.c), fed the first message of the input when its framing holds
 * (nlmsg_len within the input, as the transport checks before handing a
 * message on).
 *
 * Invariants: the result is 0 or -EBADMSG; on error the output is all zero;
 * a statistic's total and lanes are only set when it is present, at most
 * ETH_FEC_MAX_LANES lanes; the active mode bit only with have_active; the
 * samples of an accepted reply are added without a sink error and render; a
 * mode name is never empty.
 */
#include <errno.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "base/buf.h"
#include "ethtool_fec.h"
#include "fuzz.h"
#include "fuzz_nl.h"

static void check_stat(const struct eth_fec_stat *s)
{
	FUZZ_CHECK(s->n_lanes <= ETH_FEC_MAX_LANES);
	if (!s->have)
		FUZZ_CHECK(fuzz_all_zero(s, sizeof(*s)));
	for (size_t i = s->n_lanes; i < ETH_FEC_MAX_LANES; i++)
		FUZZ_CHECK(s->lanes[i] == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct metric_sink *sink;
	struct buf b = BUF_INIT;
	struct nlmsghdr *nlh;
	struct eth_fec f;
	char name[24];
	void *buf;
	int r;

	nlh = fuzz_nlmsg_copy(data, size);
	if (!nlh)
		return 0;
	buf = nlh;
	memset(&f, 0xa5, sizeof(f));
	r = eth_parse_fec_reply(nlh, &f);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	if (r < 0) {
		FUZZ_CHECK(fuzz_all_zero(&f, sizeof(f)));
		free(buf);
		return 0;
	}
	check_stat(&f.corrected);
	check_stat(&f.uncorrectable);
	check_stat(&f.corrected_bits);
	FUZZ_CHECK(f.have_active || f.active_bit == 0);
	FUZZ_CHECK(eth_fec_mode_name(f.active_bit, name, sizeof(name))[0] != '\0');

	sink = metric_sink_new();
	if (sink) {
		r = eth_fec_emit(sink, "eth0", &f);
		FUZZ_CHECK(r == 0 || r == -ENOMEM);
		if (r == 0) {
			FUZZ_CHECK(metric_sink_errors(sink) == 0);
			metric_sink_render(sink, &b);
			buf_free(&b);
		}
		metric_sink_free(sink);
	}
	free(buf);
	return 0;
}
