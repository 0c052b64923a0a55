// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the ethtool collector's netlink reply parsers
 * (ethtool_nl.c): the generic netlink family reply, the ethtool pause
 * statistics reply, the DCB IEEE (PFC) reply and the module EEPROM reply, each
 * fed the first message of
 * the input when its framing holds (nlmsg_len within the input, as the
 * transport must check before handing a message on).
 *
 * Invariants: results are 0 or the documented errors; on error the outputs
 * are zero (no half-filled statistics); a family id is a dynamic one; PFC
 * counters and pause counters are only reported when present; module data
 * at most ETH_MODULE_READ_MAX bytes, none on error.
 */
#include <errno.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "ethtool_nl.h"
#include "fuzz.h"
#include "fuzz_nl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct eth_pause_stats pause;
	struct eth_pfc pfc;
	struct eth_module_data md;
	struct nlmsghdr *nlh;
	uint16_t id;
	void *buf;
	int r;

	nlh = fuzz_nlmsg_copy(data, size);
	if (!nlh)
		return 0;
	buf = nlh;

	r = eth_parse_genl_family_reply(nlh, &id);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	FUZZ_CHECK(r == 0 ? id >= NLMSG_MIN_TYPE : id == 0);

	memset(&pause, 0xa5, sizeof(pause));
	r = eth_parse_pause_reply(nlh, &pause);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	if (r < 0)
		FUZZ_CHECK(!pause.have_tx && !pause.have_rx && !pause.tx_frames &&
			   !pause.rx_frames);
	FUZZ_CHECK(pause.have_tx || !pause.tx_frames);
	FUZZ_CHECK(pause.have_rx || !pause.rx_frames);

	memset(&pfc, 0xa5, sizeof(pfc));
	r = eth_parse_dcb_ieee_reply(nlh, &pfc);
	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -EOPNOTSUPP || r == -ENODATA);
	if (r < 0)
		FUZZ_CHECK(fuzz_all_zero(&pfc, sizeof(pfc)));

	memset(&md, 0xa5, sizeof(md));
	r = eth_parse_module_eeprom_reply(nlh, &md);
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	FUZZ_CHECK(md.len <= ETH_MODULE_READ_MAX);
	if (r < 0)
		FUZZ_CHECK(fuzz_all_zero(&md, sizeof(md)));
	free(buf);
	return 0;
}
