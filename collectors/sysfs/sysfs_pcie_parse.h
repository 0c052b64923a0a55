/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pure parsers for the PCIe attributes of an RDMA device's PCI function
 * (<sysfs>/class/infiniband/<dev>/device/): the link's speed and width and
 * the AER error counters. Bytes in, numbers or spans out; no I/O, no logging,
 * no globals. Surrounding ASCII whitespace and a trailing newline (or none)
 * are accepted.
 *
 * Formats (drivers/pci/pci-sysfs.c, drivers/pci/pcie/aer.c, read for facts):
 *  - current_link_speed, max_link_speed: pci_speed_string(), "2.5 GT/s PCIe",
 *    "5.0 GT/s PCIe", "8.0 GT/s PCIe", "16.0 GT/s PCIe", "32.0 GT/s PCIe",
 *    "64.0 GT/s PCIe", or "Unknown" (the link is down or the speed is not
 *    one the kernel knows); kernels before 4.19 printed "8 GT/s", "5 GT/s".
 *  - current_link_width, max_link_width: "%u" lanes ("16"); 0 when the link
 *    is down.
 *  - aer_dev_correctable, aer_dev_nonfatal, aer_dev_fatal: one "NAME COUNT"
 *    line per error bit of the AER status register (RxErr, BadTLP, ...,
 *    Undefined, DLP, CmpltTO, ...), then a "TOTAL_ERR_COR",
 *    "TOTAL_ERR_NONFATAL" or "TOTAL_ERR_FATAL" line.
 *
 * All return 0 or a negative errno: -EINVAL not the expected format, -ERANGE
 * a number that does not fit, -E2BIG more AER lines than the caller's room.
 */
#ifndef RDMA_EXPORTER_SYSFS_PCIE_PARSE_H
#define RDMA_EXPORTER_SYSFS_PCIE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most fractional digits of a link speed in GT/s ("2.5"): 10^-9 GT/s is one
 * transfer per second. */
#define SYSFS_PCIE_SPEED_MAX_FRAC 9

/*
 * current_link_speed / max_link_speed -> transfers per second: "16.0 GT/s
 * PCIe" -> 16000000000, "2.5 GT/s PCIe" -> 2500000000. "Unknown" (also
 * "Unknown speed") -> 0. What follows "GT/s" after a blank is ignored
 * ("PCIe"). Conventional PCI and PCI-X ("66 MHz PCI-X") are -EINVAL.
 */
int sysfs_parse_pcie_speed(const char *s, size_t len, uint64_t *transfers_per_second);

/* current_link_width / max_link_width: "16" -> 16 ("x16" is accepted too). */
int sysfs_parse_pcie_width(const char *s, size_t len, uint64_t *lanes);

/* Error types an AER file may list: the AER status registers have 32 bits. */
#define SYSFS_AER_MAX_TYPES 32
/* The name of an error type: the kernel's are at most 16 characters. */
#define SYSFS_AER_NAME_MAX 32

/* One line of an AER file. name points into the input. */
struct sysfs_aer_entry {
	const char *name;
	size_t name_len;
	uint64_t count;
};

/*
 * aer_dev_correctable / aer_dev_nonfatal / aer_dev_fatal: every "NAME COUNT"
 * line into out[] (at most max, in file order), leaving out the TOTAL_*
 * lines (their sum). Empty lines are skipped. A NAME has letters, digits,
 * "_" and "-", at most SYSFS_AER_NAME_MAX characters. -EINVAL on any other
 * line, -E2BIG when there are more than max.
 */
int sysfs_parse_aer(const char *s, size_t len, struct sysfs_aer_entry *out, size_t max, size_t *n);

/* The entry named name (len bytes) in e[0, n), looked for from hint on (the
 * order rarely changes); NULL when none. */
const struct sysfs_aer_entry *sysfs_aer_find(const struct sysfs_aer_entry *e, size_t n, size_t hint,
					     const char *name, size_t len);

/*
 * Feeds the bytes to every parser above and checks their invariants (spans
 * inside the input, names valid, no TOTAL line kept). Returns 0; aborts on a
 * broken invariant. For the fuzz target and its replay over the corpus.
 */
int sysfs_pcie_fuzz_one(const uint8_t *data, size_t size);

#endif
