// SPDX-License-Identifier: Apache-2.0
/*
 * Transceiver samples of the ethtool collector (module_collect.h). A module
 * read is up to five 128-byte page reads over the module's I2C bus, which is
 * slow (tens of ms on some NICs) and logged by some drivers when the cage is
 * empty: so reads happen at most every interval, the decode is served from the
 * cache in between, and a netdev without module access is not asked again
 * until the next full scan.
 */
#include "module_collect.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

enum module_status {
	MODULE_NEVER_READ,
	MODULE_PRESENT,	      /* info holds the last good read */
	MODULE_ABSENT,	      /* empty cage at the last read */
	MODULE_FAILED,	      /* the last read failed */
	MODULE_UNSUPPORTED,   /* no module access: not asked until the next full scan */
	MODULE_NOT_PERMITTED, /* no CAP_NET_ADMIN: likewise */
};

struct module_state {
	enum module_status status;
	uint64_t last_read_ms;
	bool warned; /* a read failure was logged at warning */
	struct module_info info;
};

struct module_state *module_state_new(void)
{
	return calloc(1, sizeof(struct module_state));
}

void module_state_free(struct module_state *s)
{
	free(s);
}

void module_state_rescan(struct module_state *s)
{
	if (s && (s->status == MODULE_UNSUPPORTED || s->status == MODULE_NOT_PERMITTED))
		s->status = MODULE_NEVER_READ;
}

static const char help_info[] =
	"Pluggable module (transceiver) of the netdev, from its EEPROM (SFF-8472, SFF-8636 or "
	"CMIS) read with ethtool netlink ETHTOOL_MSG_MODULE_EEPROM_GET; identifier is the "
	"SFF-8024 name, media optical, copper or unknown; always 1.";
static const char help_temp[] =
	"Module temperature in degrees Celsius, from the module's EEPROM diagnostics.";
static const char help_volt[] = "Module supply voltage in volts, from the module's EEPROM "
				"diagnostics.";
static const char help_rx[] =
	"Received optical power of the lane in watts (the module's average or OMA "
	"measurement), from the module's EEPROM diagnostics; lanes numbered from 1.";
static const char help_tx[] =
	"Transmitted optical power of the lane in watts, from the module's EEPROM diagnostics.";
static const char help_bias[] =
	"Laser bias current of the lane in amperes, from the module's EEPROM diagnostics.";
static const char help_thr[] =
	"Alarm or warning threshold the module declares in its EEPROM for a quantity "
	"(temperature_celsius, supply_voltage_volts, rx_power_watts, tx_power_watts, "
	"tx_bias_current_amperes), in that quantity's unit.";

static const char *const lane_str[MODULE_MAX_LANES] = {"1", "2", "3", "4", "5", "6", "7", "8"};

static int add(struct metric_sink *sink, const char *fam, const char *help,
	       const struct metric_label *l, size_t n, double v)
{
	return collector_sink_result(
		metric_sink_add_double(sink, fam, help, METRIC_GAUGE, l, n, v));
}

static int emit_lanes(struct metric_sink *sink, const char *netdev, const struct module_info *m)
{
	int r = 0;

	for (unsigned i = 0; i < m->n_lanes && i < MODULE_MAX_LANES && r == 0; i++) {
		const struct metric_label l[] = {{"netdev", netdev}, {"lane", lane_str[i]}};

		if (m->rx_power[i].have)
			r = add(sink, "rdma_netdev_module_lane_rx_power_watts", help_rx, l, 2,
				m->rx_power[i].v);
		if (r == 0 && m->tx_power[i].have)
			r = add(sink, "rdma_netdev_module_lane_tx_power_watts", help_tx, l, 2,
				m->tx_power[i].v);
		if (r == 0 && m->tx_bias[i].have)
			r = add(sink, "rdma_netdev_module_lane_tx_bias_current_amperes", help_bias,
				l, 2, m->tx_bias[i].v);
	}
	return r;
}

static int emit(struct metric_sink *sink, const char *netdev, const struct module_info *m)
{
	const struct metric_label nl[] = {{"netdev", netdev}};
	int r;

	r = collector_sink_result(metric_sink_add_u64(
		sink, "rdma_netdev_module_info", help_info, METRIC_GAUGE,
		METRIC_LABELS({"netdev", netdev}, {"identifier", m->identifier},
			      {"vendor", m->vendor}, {"part_number", m->part_number},
			      {"serial_number", m->serial}, {"revision", m->revision},
			      {"media", m->media}),
		1));
	if (r == 0 && m->temperature.have)
		r = add(sink, "rdma_netdev_module_temperature_celsius", help_temp, nl, 1,
			m->temperature.v);
	if (r == 0 && m->voltage.have)
		r = add(sink, "rdma_netdev_module_supply_voltage_volts", help_volt, nl, 1,
			m->voltage.v);
	if (r == 0)
		r = emit_lanes(sink, netdev, m);
	for (int q = 0; q < MODULE_Q_COUNT && r == 0; q++)
		for (int lv = 0; lv < MODULE_L_COUNT && r == 0; lv++) {
			const struct metric_label l[] = {
				{"netdev", netdev},
				{"quantity", module_quantity_name((enum module_quantity)q)},
				{"level", module_level_name((enum module_level)lv)},
			};

			if (m->threshold[q][lv].have)
				r = add(sink, "rdma_netdev_module_threshold", help_thr, l, 3,
					m->threshold[q][lv].v);
		}
	return r;
}

static void read_module(struct module_state *s, struct module_policy *pol, const char *netdev,
			struct collector_stats *stats)
{
	enum module_status was = s->status;
	unsigned failed_pages = 0;
	char eb[128];
	int r = module_read(pol->read_page, pol->io, netdev, &s->info, &failed_pages);

	if (r == 0) {
		s->status = MODULE_PRESENT;
		if (was != MODULE_PRESENT)
			log_info("transceiver module found",
				 "collector=ethtool netdev=%s "
				 "identifier=%s vendor=%s part_number=%s",
				 netdev, s->info.identifier, s->info.vendor, s->info.part_number);
		if (failed_pages) {
			/* decoded from the pages that were read; the rest is absent */
			stats->read_errors += failed_pages;
			log_msg(s->warned ? LOG_DEBUG : LOG_WARNING,
				"module EEPROM pages could not be read",
				"collector=ethtool netdev=%s pages=%u", netdev, failed_pages);
			s->warned = true;
		}
		return;
	}
	if (r == -EOPNOTSUPP) {
		s->status = MODULE_UNSUPPORTED;
		log_msg(pol->logged_unsupported ? LOG_DEBUG : LOG_INFO,
			pol->logged_unsupported ? "netdev has no module EEPROM access"
						: "netdev has no module EEPROM access; others "
						  "like it are logged at debug",
			"collector=ethtool netdev=%s", netdev);
		pol->logged_unsupported = true;
		return;
	}
	if (r == -EPERM) {
		s->status = MODULE_NOT_PERMITTED;
		log_msg(pol->logged_not_permitted ? LOG_DEBUG : LOG_INFO,
			"module EEPROM reads not permitted: they need CAP_NET_ADMIN; no "
			"transceiver metrics",
			"collector=ethtool netdev=%s", netdev);
		pol->logged_not_permitted = true;
		return;
	}
	if (r == -ENODATA) {
		s->status = MODULE_ABSENT;
		if (was == MODULE_PRESENT)
			log_info("transceiver module gone", "collector=ethtool netdev=%s", netdev);
		return;
	}
	s->status = MODULE_FAILED;
	stats->read_errors++;
	log_msg(s->warned ? LOG_DEBUG : LOG_WARNING, "module EEPROM read failed",
		"collector=ethtool netdev=%s err=%s errno=%d", netdev,
		log_strerror(r, eb, sizeof(eb)), -r);
	s->warned = true;
}

int module_poll(struct module_state *s, struct module_policy *pol, const char *netdev,
		uint64_t now_ms, struct metric_sink *sink, struct collector_stats *stats)
{
	if (!s || !pol->interval_ms || !pol->read_page || s->status == MODULE_UNSUPPORTED ||
	    s->status == MODULE_NOT_PERMITTED)
		return 0;
	if (s->status == MODULE_NEVER_READ || now_ms - s->last_read_ms >= pol->interval_ms) {
		s->last_read_ms = now_ms;
		read_module(s, pol, netdev, stats);
	}
	return s->status == MODULE_PRESENT ? emit(sink, netdev, &s->info) : 0;
}
