/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The node's expected fabric for `rdma_exporter check --check.expect=SPEC`,
 * so that one line serves a fleet of identical nodes. Pure parser.
 *
 *   SPEC  = ITEM { SEP ITEM }        SEP: blanks, newlines or commas
 *   ITEM  = DEVICE [ ":" PORTS ] [ "@" GBPS ]
 *   DEVICE: a device name ([A-Za-z0-9_.-]) with at most one bracket group
 *           "[" RANGE { "," RANGE } "]", RANGE = N | N "-" M
 *   PORTS = N | N "-" M                (default 1)
 *   GBPS  = the least rate in Gb/s, decimal ("400", "12.5"); none: only
 *           --check.rate-min applies
 *
 * "#" starts a comment up to the end of the line, so a file of the same
 * syntax may be commented. Example: "mlx5_[0-7]:1@400 mlx5_bond_0@100".
 */
#ifndef RDMA_EXPORTER_CHECK_EXPECT_H
#define RDMA_EXPORTER_CHECK_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

/* IB_DEVICE_NAME_MAX is 64 with the NUL. */
#define CHECK_EXPECT_NAME_MAX 64
/* Ports a spec may expand to: far above any node, small enough to print. */
#define CHECK_EXPECT_MAX_PORTS 4096
#define CHECK_EXPECT_MAX_PORT  255

struct check_expect_port {
	char device[CHECK_EXPECT_NAME_MAX];
	unsigned port;
	double rate_gbps; /* 0: no rate of its own */
};

struct check_expect {
	struct check_expect_port *v; /* in spec order */
	size_t n;
};

/* 0, -ENOMEM, or -EINVAL with a one-line reason in why (e is then empty).
 * The same device and port listed twice is an error. */
int check_expect_parse(const char *spec, struct check_expect *e, char *why, size_t whylen);
void check_expect_free(struct check_expect *e);

/*
 * The PCIe links a node should run at, for --check.expect-pcie=SPEC: the
 * same item syntax with one device part and what follows "@":
 *
 *   ITEM = DEVICE "@" ( [ GTS ] [ "x" WIDTH ] | "any" )
 *   GTS   the least link speed in GT/s ("32", "16", "2.5")
 *   WIDTH the least lanes (1 to 32)
 *   any   the device's link is not judged
 *
 * A field left out keeps the default rule for it: the link must run at the
 * device's own maximum (max_link_speed, max_link_width). Example:
 * "mlx5_[0-3]@32x16 mlx5_[4-7]@x8 mlx5_bond_0@any".
 */
#define CHECK_EXPECT_PCIE_MAX_WIDTH 32

struct check_expect_pcie_dev {
	char device[CHECK_EXPECT_NAME_MAX];
	double gts;	/* 0: the device's max_link_speed */
	unsigned width; /* 0: the device's max_link_width */
	bool any;	/* not judged */
};

struct check_expect_pcie {
	struct check_expect_pcie_dev *v; /* in spec order */
	size_t n;
};

/* 0, -ENOMEM, or -EINVAL with a one-line reason in why (e is then empty).
 * The same device listed twice is an error. */
int check_expect_pcie_parse(const char *spec, struct check_expect_pcie *e, char *why,
			    size_t whylen);
void check_expect_pcie_free(struct check_expect_pcie *e);

#endif
