// SPDX-License-Identifier: Apache-2.0
/*
 * The checks of the hardware beyond the ports (check_hw.h): each device's
 * PCIe link, each transceiver's readings against its own thresholds, and
 * the devlink health reporters. Pure, as check.c.
 */
#include "check/check_hw.h"

#include <stdio.h>
#include <string.h>

/* --- pcie ---------------------------------------------------------------- */

#define FAM_PCIE_SPEED	   "rdma_device_pcie_link_speed_transfers_per_second"
#define FAM_PCIE_MAX_SPEED "rdma_device_pcie_link_max_speed_transfers_per_second"
#define FAM_PCIE_WIDTH	   "rdma_device_pcie_link_width"
#define FAM_PCIE_MAX_WIDTH "rdma_device_pcie_link_max_width"

static const struct check_expect_pcie_dev *pcie_expected(const struct check_config *c,
							 const char *dev)
{
	for (size_t i = 0; c->expect_pcie && i < c->expect_pcie->n; i++)
		if (strcmp(c->expect_pcie->v[i].device, dev) == 0)
			return &c->expect_pcie->v[i];
	return NULL;
}

static double device_value(const struct check_table *t, const char *family, const char *dev,
			   bool *found)
{
	const struct check_sample *s =
		check_table_find(t, family, &(struct metric_label){"device", dev}, 1);

	*found = s != NULL;
	return s ? s->value : 0;
}

/*
 * One device's link: at least the expected speed and width, or, for what
 * is not expected, the device's own maximum (an unknown maximum, 0, is not
 * judged). FAIL names the device, the link and both figures.
 */
static int eval_pcie_device(const struct check_config *c, const struct check_table *t,
			    const char *dev, struct check_results *out)
{
	const struct check_expect_pcie_dev *x = pcie_expected(c, dev);
	bool has_speed, has_max_speed, has_width, has_max_width;
	double gts = device_value(t, FAM_PCIE_SPEED, dev, &has_speed) / 1e9;
	double max_gts = device_value(t, FAM_PCIE_MAX_SPEED, dev, &has_max_speed) / 1e9;
	double width = device_value(t, FAM_PCIE_WIDTH, dev, &has_width);
	double max_width = device_value(t, FAM_PCIE_MAX_WIDTH, dev, &has_max_width);
	double want_gts = x && x->gts > 0 ? x->gts : max_gts;
	double want_width = x && x->width ? x->width : max_width;
	const char *whose = x && (x->gts > 0 || x->width) ? "want at least" : "device max";

	if (!has_speed && !has_width)
		return check_result_add(out, CHECK_UNKNOWN, "pcie", dev,
					"the PCIe link cannot be read (see the log)");
	if (x && x->any)
		return check_result_add(out, CHECK_OK, "pcie", dev,
					"PCIe %g GT/s x%g, not judged (--check.expect-pcie any)",
					gts, width);
	if ((has_speed && want_gts > 0 && gts < want_gts) ||
	    (has_width && want_width > 0 && width < want_width)) {
		if (x && (x->gts > 0 || x->width))
			return check_result_add(out, CHECK_FAIL, "pcie", dev,
						"PCIe link %g GT/s x%g, want at least %g GT/s x%g "
						"(--check.expect-pcie); device max %g GT/s x%g",
						gts, width, want_gts, want_width, max_gts,
						max_width);
		return check_result_add(out, CHECK_FAIL, "pcie", dev,
					"PCIe link %g GT/s x%g, below the device max %g GT/s x%g",
					gts, width, max_gts, max_width);
	}
	if (!has_max_speed && !has_max_width && !x)
		return check_result_add(out, CHECK_UNKNOWN, "pcie", dev,
					"PCIe %g GT/s x%g, the device's maximum cannot be read",
					gts, width);
	return check_result_add(out, CHECK_OK, "pcie", dev, "PCIe %g GT/s x%g (%s %g GT/s x%g)",
				gts, width, whose, want_gts, want_width);
}

static bool has_pcie(const struct check_table *t, const char *dev)
{
	bool a, b;

	device_value(t, FAM_PCIE_SPEED, dev, &a);
	device_value(t, FAM_PCIE_WIDTH, dev, &b);
	return a || b;
}

int check_eval_pcie(const struct check_config *c, const struct check_table *t,
		    struct check_results *out)
{
	size_t n, i = check_table_family(t, "rdma_device_info", &n);
	int r = 0;

	if (check_table_collector_state(t, "sysfs") != 1)
		return 0; /* the ports check says why */
	/* every device with a PCIe link, in exposition order */
	for (; n > 0 && r == 0; i++, n--) {
		const char *dev = check_sample_label(&t->v[i], "device");

		if (dev && has_pcie(t, dev))
			r = eval_pcie_device(c, t, dev, out);
	}
	/* expected devices that have none */
	for (size_t k = 0; c->expect_pcie && k < c->expect_pcie->n && r == 0; k++) {
		const char *dev = c->expect_pcie->v[k].device;

		if (has_pcie(t, dev))
			continue;
		if (check_table_device_unresponsive(t, dev))
			r = check_result_add(out, CHECK_FAIL, "pcie", dev,
					     "device %s does not answer", dev);
		else if (check_table_find(t, "rdma_device_info",
					  &(struct metric_label){"device", dev}, 1))
			r = check_result_add(
				out, CHECK_UNKNOWN, "pcie", dev,
				"no PCIe link attributes (a software device or a VF?)");
		else
			r = check_result_add(out, CHECK_FAIL, "pcie", dev, "device %s not found",
					     dev);
	}
	return r;
}

/* --- modules ---------------------------------------------------------------- */

/* A transceiver reading and the name of its thresholds' quantity. */
static const struct module_quantity {
	const char *family;
	const char *quantity; /* rdma_netdev_module_threshold's label */
	const char *what;
	const char *unit;
	double scale; /* to unit */
} module_quantities[] = {
	{"rdma_netdev_module_temperature_celsius", "temperature_celsius", "temperature", "C", 1},
	{"rdma_netdev_module_supply_voltage_volts", "supply_voltage_volts", "supply voltage", "V",
	 1},
	{"rdma_netdev_module_lane_rx_power_watts", "rx_power_watts", "rx power", "mW", 1e3},
	{"rdma_netdev_module_lane_tx_power_watts", "tx_power_watts", "tx power", "mW", 1e3},
	{"rdma_netdev_module_lane_tx_bias_current_amperes", "tx_bias_current_amperes", "tx bias",
	 "mA", 1e3},
};

/* The module's low and high threshold of a level ("alarm", "warning"); false
 * when it declares none (absent, or both 0). */
static bool module_limits(const struct check_table *t, const char *netdev, const char *quantity,
			  const char *level, double *lo, double *hi)
{
	char lo_name[16], hi_name[16];
	const struct check_sample *l, *h;

	snprintf(lo_name, sizeof(lo_name), "low_%s", level);
	snprintf(hi_name, sizeof(hi_name), "high_%s", level);
	l = check_table_find(t, "rdma_netdev_module_threshold",
			     (struct metric_label[]){{"netdev", netdev},
						     {"quantity", quantity},
						     {"level", lo_name}},
			     3);
	h = check_table_find(t, "rdma_netdev_module_threshold",
			     (struct metric_label[]){{"netdev", netdev},
						     {"quantity", quantity},
						     {"level", hi_name}},
			     3);
	if (!l || !h || h->value <= l->value)
		return false;
	*lo = l->value;
	*hi = h->value;
	return true;
}

/* Beyond the level's thresholds: writes "rx power lane 3 0.05 mW, below its
 * low alarm threshold 0.1 mW" into out and returns true. */
static bool module_beyond(const struct check_table *t, const struct module_quantity *q,
			  const struct check_sample *s, const char *netdev, const char *level,
			  char *out, size_t size)
{
	const char *lane = check_sample_label(s, "lane");
	double lo, hi;
	bool low;

	if (!module_limits(t, netdev, q->quantity, level, &lo, &hi) ||
	    (s->value >= lo && s->value <= hi))
		return false;
	low = s->value < lo;
	snprintf(out, size, "%s%s%s %g %s, %s its %s %s threshold %g %s", q->what,
		 lane ? " lane " : "", lane ? lane : "", s->value * q->scale, q->unit,
		 low ? "below" : "above", low ? "low" : "high", level, (low ? lo : hi) * q->scale,
		 q->unit);
	return true;
}

/*
 * Each transceiver's readings against the module's own thresholds: a
 * reading beyond an alarm threshold FAILs (one line each, naming the
 * netdev, the lane, the value and the threshold); a module within them is
 * OK, naming the first reading beyond a warning threshold if any (check
 * has no warning status). Modules without diagnostics are not judged.
 */
static int eval_module(const struct check_table *t, const char *netdev, struct check_results *out)
{
	char why[200], warn[200] = "";
	unsigned readings = 0, failed = 0, warned = 0;
	int r = 0;

	for (size_t k = 0; k < sizeof(module_quantities) / sizeof(module_quantities[0]); k++) {
		const struct module_quantity *q = &module_quantities[k];
		size_t n, i = check_table_family(t, q->family, &n);

		for (; n > 0 && r == 0; i++, n--) {
			const char *nd = check_sample_label(&t->v[i], "netdev");

			if (!nd || strcmp(nd, netdev) != 0)
				continue;
			readings++;
			if (module_beyond(t, q, &t->v[i], netdev, "alarm", why, sizeof(why))) {
				failed++;
				r = check_result_add(out, CHECK_FAIL, "modules", netdev,
						     "module %s", why);
			} else if (module_beyond(t, q, &t->v[i], netdev, "warning", why,
						 sizeof(why)) &&
				   warned++ == 0) {
				snprintf(warn, sizeof(warn), "%s", why);
			}
		}
	}
	if (r != 0 || failed || readings == 0)
		return r;
	if (warned)
		return check_result_add(out, CHECK_OK, "modules", netdev,
					"module within its alarm thresholds; %u beyond a warning "
					"threshold: %s",
					warned, warn);
	return check_result_add(out, CHECK_OK, "modules", netdev,
				"module within its thresholds (%u readings)", readings);
}

int check_eval_modules(const struct check_table *t, struct check_results *out)
{
	size_t n, i = check_table_family(t, "rdma_netdev_module_info", &n);
	int r = 0;

	if (check_table_collector_state(t, "ethtool") != 1)
		return 0;
	for (; n > 0 && r == 0; i++, n--) {
		const char *netdev = check_sample_label(&t->v[i], "netdev");

		if (netdev)
			r = eval_module(t, netdev, out);
	}
	return r;
}

/* --- devlink ---------------------------------------------------------------- */

/*
 * Each devlink health reporter of an RDMA device (devlink collector): one in
 * its error state FAILs (one line each, with its error and recovery counts);
 * all healthy is one OK line for the node. Not judged when the collector did
 * not succeed (a refused dump) or reports nothing (a kernel without devlink).
 */
int check_eval_devlink(const struct check_table *t, struct check_results *out)
{
	size_t n, i = check_table_family(t, "rdma_devlink_health_state", &n);
	unsigned healthy = 0, failed = 0;
	int r = 0;

	if (check_table_collector_state(t, "devlink") != 1)
		return 0;
	for (; n > 0 && r == 0; i++, n--) {
		const struct check_sample *s = &t->v[i], *errs;
		const char *dev = check_sample_label(s, "device");
		const char *rep = check_sample_label(s, "reporter");

		if (!dev || !rep)
			continue;
		if (s->value == 0) {
			healthy++;
			continue;
		}
		failed++;
		errs = check_table_find(t, "rdma_devlink_health_errors_total",
					(struct metric_label[]){{"device", dev}, {"reporter", rep}},
					2);
		r = check_result_add(out, CHECK_FAIL, "devlink", dev,
				     "devlink health reporter %s in error (%.0f errors)", rep,
				     errs ? errs->value : 0);
	}
	if (r != 0 || failed || healthy == 0)
		return r;
	return check_result_add(out, CHECK_OK, "devlink", "node",
				"%u devlink health reporters healthy", healthy);
}
