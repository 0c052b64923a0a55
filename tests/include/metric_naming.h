/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The metric naming rule of docs/metric-naming.md, as a check the name
 * tables' tests run on every family they define:
 *
 *   rdma_<object>_[<qualifier>_]<what>[_<direction>][_<unit>][_total]
 *
 * <direction> is a past participle (received, transmitted, sent, dropped,
 * discarded, handled, ignored) and comes after the thing counted, never
 * before it: rdma_port_packets_received_total, not
 * rdma_port_received_packets_total. After a direction only a unit (bytes,
 * seconds, ticks) or _total may follow. The bare verbs "receive" and
 * "transmit" are not used, except in transmit_wait (IB PortXmitWait, the
 * name node_exporter uses too).
 */
#ifndef RDMA_EXPORTER_TESTS_METRIC_NAMING_H
#define RDMA_EXPORTER_TESTS_METRIC_NAMING_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static inline bool naming_word_in(const char *w, size_t n, const char *const *set)
{
	for (; *set; set++)
		if (strlen(*set) == n && strncmp(w, *set, n) == 0)
			return true;
	return false;
}

/* NULL if name follows the rule, else why not. */
static inline const char *metric_name_problem(const char *name)
{
	static const char *const directions[] = {"received",  "transmitted", "sent",	"dropped",
						 "discarded", "handled",     "ignored", NULL};
	static const char *const after_direction[] = {"bytes", "seconds", "ticks", "total", NULL};
	static const char *const verbs[] = {"receive", "transmit", NULL};
	bool after_dir = false;
	const char *w = name;

	if (strncmp(name, "rdma_", 5) != 0)
		return "does not start with rdma_";
	while (*w) {
		size_t n = strcspn(w, "_");
		const char *next = w[n] ? w + n + 1 : w + n;

		if (after_dir && !naming_word_in(w, n, after_direction))
			return "a word other than a unit or total after the direction";
		if (naming_word_in(w, n, directions))
			after_dir = true;
		if (naming_word_in(w, n, verbs) && strncmp(w, "transmit_wait", 13) != 0)
			return "uses the verb receive/transmit instead of received/transmitted "
			       "after "
			       "the object";
		w = next;
	}
	return NULL;
}

#endif
