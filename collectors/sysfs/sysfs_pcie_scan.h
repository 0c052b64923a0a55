/* SPDX-License-Identifier: Apache-2.0 */
/*
 * I/O of the PCIe side of an RDMA device, for the sysfs collector: which
 * link and AER files its PCI function (<dev>/device) and the bridge ports
 * above it have, kept open as the counter files are (sysfs_file.h), and the
 * AER error types each file lists. Their content is parsed by
 * sysfs_pcie_parse.h. Every path is relative to the sysfs root fd. Nothing
 * here logs. A struct sysfs_pcie belongs to its device (sysfs_scan.h): made
 * at its scan, read by its job, freed with it.
 */
#ifndef RDMA_EXPORTER_SYSFS_PCIE_SCAN_H
#define RDMA_EXPORTER_SYSFS_PCIE_SCAN_H

#include <stddef.h>

#include "sysfs_file.h"

/*
 * The PCIe side of a device (scanned by sysfs_pcie_scan()): the link attributes of
 * its PCI function and of the ports above it, and its AER counters. Only files
 * that exist at scan time are kept (name NULL otherwise).
 */
enum sysfs_pcie_link_file {
	SYSFS_PCIE_SPEED,     /* current_link_speed */
	SYSFS_PCIE_MAX_SPEED, /* max_link_speed */
	SYSFS_PCIE_WIDTH,     /* current_link_width */
	SYSFS_PCIE_MAX_WIDTH, /* max_link_width */
	SYSFS_PCIE_LINK_FILES,
};

/* Whose link: the device's, or a bridge above it. */
enum sysfs_pcie_link_pos {
	SYSFS_PCIE_DEVICE,	    /* <dev>/device: the RDMA device's own function */
	SYSFS_PCIE_PARENT,	    /* device/..: the root or switch downstream port above it */
	SYSFS_PCIE_SWITCH_UPSTREAM, /* device/../..: a switch's upstream port, when the
				       parent is a switch downstream port */
	SYSFS_PCIE_LINKS,
};

enum sysfs_aer_severity {
	SYSFS_AER_CORRECTABLE, /* aer_dev_correctable */
	SYSFS_AER_NONFATAL,    /* aer_dev_nonfatal */
	SYSFS_AER_FATAL,       /* aer_dev_fatal */
	SYSFS_AER_FILES,
};

struct sysfs_pcie_link {
	char *dir; /* relative to the root; NULL: not read (no current_link_speed) */
	struct sysfs_file files[SYSFS_PCIE_LINK_FILES];
};

struct sysfs_aer {
	struct sysfs_file file; /* name NULL: no such file */
	/* The error types the file listed at scan time, in its order: the
	 * kernel's table, fixed for a kernel; at most SYSFS_AER_MAX_TYPES. */
	char **types;
	size_t n_types;
};

struct sysfs_pcie {
	struct sysfs_pcie_link link[SYSFS_PCIE_LINKS];
	struct sysfs_aer aer[SYSFS_AER_FILES]; /* in device/ */
};

/*
 * The PCIe part of a device, from <devdir>/device (devdir: the device's
 * directory, class/infiniband/<dev>, relative to the root): *out NULL for a
 * device without a PCI function with link attributes, or for an SR-IOV VF
 * (device/physfn exists: its link is the PF's, its link registers read as
 * zero). Files are kept open below fd_limit, as sysfs_file_open() does
 * (*n_reopen_each counts the others). Returns 0, -ENOMEM or -ENAMETOOLONG.
 */
int sysfs_pcie_scan(int root, const char *devdir, int fd_limit, unsigned *n_reopen_each,
		    struct sysfs_pcie **out);
/* NULL is a no-op. */
void sysfs_pcie_free(struct sysfs_pcie *pcie);

#endif
