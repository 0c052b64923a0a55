/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pure parsers for the contents of /sys/class/infiniband files: bytes in,
 * number or span out. No I/O, no logging, no globals. The input need not be
 * NUL-terminated; a trailing newline (or none) and surrounding ASCII
 * whitespace are accepted everywhere.
 *
 * All return 0 or a negative errno:
 *   -EINVAL   not the expected format (empty, junk, sign, ...)
 *   -ERANGE   the number does not fit
 *   -ENODATA  the driver says there is no value ("N/A (no PMA)" on iWARP)
 */
#ifndef RDMA_EXPORTER_SYSFS_PARSE_H
#define RDMA_EXPORTER_SYSFS_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Counter file: one unsigned decimal number ("12345\n"). */
int sysfs_parse_counter(const char *s, size_t len, uint64_t *out);

/*
 * ports/N/state: "4: ACTIVE" -> 4. A bare name ("ACTIVE") is mapped through
 * IB PortState (base/ib_state.h): 0 NOP, 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE,
 * 5 ACTIVE_DEFER.
 */
int sysfs_parse_port_state(const char *s, size_t len, uint64_t *out);

/*
 * ports/N/phys_state: "5: LinkUp" -> 5. A bare name is mapped through IB
 * PortPhysicalState: 1 Sleep, 2 Polling, 3 Disabled,
 * 4 PortConfigurationTraining, 5 LinkUp, 6 LinkErrorRecovery, 7 Phy Test.
 */
int sysfs_parse_phys_state(const char *s, size_t len, uint64_t *out);

/*
 * ports/N/rate: "100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)", "10 Gb/sec (4X)"
 * -> bytes per second, Gb * 10^9 / 8 computed in integers (up to 9
 * fractional digits; exact up to 6, rounded down beyond).
 */
int sysfs_parse_rate(const char *s, size_t len, uint64_t *bytes_per_second);

/*
 * "<digits>[.<1 to 9 digits>]<blanks><unit>", then a blank or the end (what
 * follows a blank is the caller's): the ports' rate and the PCIe link speeds.
 * s is trimmed already. *whole, and the fraction in billionths (< 10^9).
 */
int sysfs_parse_decimal_unit(const char *s, size_t len, const char *unit, uint64_t *whole,
			     uint64_t *billionths);

/* ports/N/lid, ports/N/sm_lid: "0x1" (the kernel prints hex); decimal accepted
 * (ports/N/sm_sl, printed in decimal, is read with it too). */
int sysfs_parse_lid(const char *s, size_t len, uint64_t *out);

/*
 * node_type: "1: CA" -> "CA", "7: unspecified" -> "unspecified"; a bare
 * name is returned as is. *name points into s.
 */
int sysfs_parse_node_type(const char *s, size_t len, const char **name, size_t *name_len);

/*
 * One-line text attribute (fw_ver, hca_type, board_id, node_guid, link_layer,
 * gid_attrs/ndevs/N): trims surrounding whitespace and cuts at the first
 * NUL or newline. Returns -ENODATA when nothing is left. *out points into s.
 */
int sysfs_parse_text(const char *s, size_t len, const char **out, size_t *out_len);

/*
 * Target of a symlink such as device/driver
 * ("../../../../bus/pci/drivers/mlx5_core") -> "mlx5_core". -EINVAL when
 * the last component is empty, "." or "..".
 */
int sysfs_parse_link_basename(const char *s, size_t len, const char **out, size_t *out_len);

/* Name of a ports/ entry: canonical decimal ("1", not "01"), at most UINT32_MAX. */
int sysfs_parse_port_num(const char *s, size_t len, uint32_t *out);

/*
 * Feeds the bytes to every parser above and checks their invariants
 * (spans stay inside the input). Returns 0; aborts on a broken invariant.
 * Used by the regression test over the fixture corpus and by a fuzzer.
 */
int sysfs_parse_fuzz_one(const uint8_t *data, size_t size);

#endif
