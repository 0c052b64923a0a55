/* SPDX-License-Identifier: Apache-2.0 */
/*
 * I/O half of the sysfs collector: discovers RDMA devices, ports and counter
 * files under <root>/class/infiniband and reads them. Every path is relative
 * to the root directory fd; every fd is O_RDONLY|O_CLOEXEC. Nothing here
 * logs: errors are returned (or recorded in the objects) for the collector to
 * report once.
 *
 * Cost model: a scan opens every value file once and keeps the fd; a poll
 * re-reads each with one pread() at offset 0 (sysfs regenerates the text on
 * every read at offset 0). Text that changes rarely (fw_ver, GUIDs, netdevs)
 * is read at scan time only. The one exception: with
 * SYSFS_SCAN_PORT_HW_DEFERRED, a port's hw_counters files hold no fd while
 * RDMA netlink serves their values (sysfs_port_hw_open/close).
 *
 * One value file is sysfs_file.h's; the PCIe side of a device
 * sysfs_pcie_scan.h's.
 */
#ifndef RDMA_EXPORTER_SYSFS_SCAN_H
#define RDMA_EXPORTER_SYSFS_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "base/devfilter.h"
#include "rdmanl/sysfs_names.h"
#include "sysfs_file.h"
#include "sysfs_pcie_scan.h"

/* Directory of the devices, relative to the sysfs root. */
#define SYSFS_IB_CLASS_DIR "class/infiniband"

/*
 * File descriptors below RLIMIT_NOFILE that counter files never take, so
 * the HTTP server and the other collectors keep working on a host with more
 * counter files than the limit allows (files past it are opened per read).
 */
#define SYSFS_FD_HEADROOM 64

/* A file of counters/, counters_ext/ or hw_counters/: 32 bytes, one per
 * counter file (thousands on a large host). */
struct sysfs_counter {
	struct sysfs_file file;			/* file.name is the counter's name */
	const struct sysfs_counter_name *known; /* NULL: exported under the generic family */
	uint32_t nl_pos; /* hw_counters of a port with hw_nl: its entry in the STAT_GET reply */
	uint8_t source;	 /* one enum sysfs_counter_source */
};

/* A port's counter directories: counters/, counters_ext/, hw_counters/. */
#define SYSFS_PORT_COUNTER_DIRS 3

/* A directory the scan listed, as it looked then; sysfs_device_refresh()
 * compares. A device registered again gets new directories (new inode
 * numbers in sysfs); a file added to a directory changes its mtime. */
struct sysfs_dirstamp {
	char *path;  /* relative to the sysfs root; owned */
	bool absent; /* did not exist, or was not a directory */
	dev_t dev;
	ino_t ino;
	struct timespec mtime, ctime;
};

struct sysfs_port {
	uint32_t num;
	char num_str[11]; /* label value */
	char *link_layer; /* "" when unreadable */
	bool is_ib;
	char *dir; /* class/infiniband/<dev>/ports/<num>: the attribute files' directory */
	struct sysfs_file state, phys_state, rate;
	/* name NULL (not exported) unless the link layer is InfiniBand and the
	 * file exists: on Ethernet (RoCE) and iWARP a LID means nothing. */
	struct sysfs_file lid, sm_lid, sm_sl;
	char **netdevs; /* distinct, sorted */
	size_t n_netdevs;
	struct sysfs_counter *counters; /* sorted by source, then name */
	size_t n_counters;
	/* counters/, counters_ext/, hw_counters/ of the port; NULL when the
	 * directory gave no counter. */
	char *counter_dirs[SYSFS_PORT_COUNTER_DIRS];
	/* Set by the collector: hw_counters come from one netlink STAT_GET
	 * (sysfs_hwnl.h), not from the files; cleared on a failure until the
	 * next scan. */
	bool hw_nl;
	/* counters/ has the PortCountersExtended group (unicast_xmit_packets or
	 * unicast_rcv_packets there): its data and packet counters are 64 bit. */
	bool pma_ext;
	/* The collector's: its {device, port} labels as the exposition writer
	 * renders them (metric_labels_render()), made at the first sample;
	 * NULL until then. Freed with the port. */
	char *labels;
};

struct sysfs_device {
	char *name;
	/* Scan-time attributes, "" when missing. */
	char *node_type, *hca_type, *board_id, *fw_ver, *node_guid, *sys_image_guid, *driver;
	struct sysfs_port *ports; /* sorted by number */
	size_t n_ports;
	struct sysfs_counter *counters; /* <dev>/hw_counters, sorted by name */
	size_t n_counters;
	char *counters_dir; /* class/infiniband/<dev>/hw_counters; NULL: no counter */
	/* Directories that exist but could not be listed: values that are missing. */
	unsigned scan_errors;
	int first_scan_error;	     /* -errno of the first one */
	char *first_scan_error_path; /* and its path */
	/* Files that fell back to open-per-read: EMFILE/ENFILE, or their fd
	 * would have eaten into the SYSFS_FD_HEADROOM reserve. */
	unsigned n_reopen_each;
	int fd_limit;	     /* scan time: lowest fd number not kept open */
	unsigned scan_flags; /* of sysfs_device_scan() */
	/* Set by the collector when reads fail with ENODEV/ENOENT (device gone,
	 * or removed and re-added under the same name): re-scan it next poll. */
	bool recheck;
	bool no_pma_logged;	       /* "N/A (no PMA)" counters said once */
	uint32_t nl_index;	       /* RDMA netlink device index, when a port has hw_nl */
	struct sysfs_dirstamp *stamps; /* the directories listed, for the re-check */
	size_t n_stamps;
	/* A stamp could not be taken, or its times were too recent to tell a
	 * later change from them: the re-check scans the device again. */
	bool stamps_unsure;
	/* NULL: no PCIe attributes (software device, SR-IOV VF, not PCIe). */
	struct sysfs_pcie *pcie;
	/* The collector's: {device} as rendered, as sysfs_port.labels. */
	char *labels;
};

/* What the listing saw besides the names it kept: which "no device" case it is. */
struct sysfs_listing {
	bool no_class_dir;     /* class/infiniband missing (no RDMA driver loaded) */
	size_t n_present;      /* entries before the filter */
	size_t n_not_included; /* dropped by --collector.device-include */
	size_t n_excluded;     /* dropped by --collector.device-exclude */
};

/*
 * Lists the names under class/infiniband that match the filter (NULL
 * matches all), sorted with sysfs_name_cmp(). A missing directory is an
 * empty list. *names is a NULL-terminated array; free with
 * sysfs_names_free(). info may be NULL. Returns 0, -ENOMEM, or the -errno
 * of opening or reading the directory.
 */
int sysfs_list_devices(int root, const struct device_filter *filter, char ***names, size_t *n,
		       struct sysfs_listing *info);
void sysfs_names_free(char **names);

/* Natural order: "mlx5_2" before "mlx5_10". */
int sysfs_name_cmp(const char *a, const char *b);

/*
 * Scans class/infiniband/<name>: attributes, ports and counter files, with
 * the counter files kept open. Returns 0, -ENOMEM, or the -errno of opening
 * the device directory (-ENOENT when it vanished). Parts that are missing
 * are left empty; parts that cannot be listed are counted in scan_errors.
 */
/* Counter files are kept open only below RLIMIT_NOFILE - fd_reserve
 * (0: SYSFS_FD_HEADROOM); the others are opened per read. */
int sysfs_device_scan(int root, const char *name, unsigned fd_reserve, unsigned flags,
		      struct sysfs_device **out);

/* Flags of sysfs_device_scan(). */
enum {
	/* The ports' hw_counters files are listed, not opened (deferred): the
	 * caller asks RDMA netlink first, then opens the files of the ports it
	 * does not serve with sysfs_port_hw_open(). */
	SYSFS_SCAN_PORT_HW_DEFERRED = 1u << 0,
};

/*
 * The deferred hw_counters files of port p, opened as the scan opens files:
 * kept open below dev->fd_limit, else opened per read (n_reopen_each), or
 * absent. Files already open stay as they are. Returns 0, or the first
 * -errno of a file that stays deferred (read with an open per read).
 */
int sysfs_port_hw_open(int root, struct sysfs_device *dev, struct sysfs_port *p);
/* Closes the hw_counters files of port p (netlink serves them): deferred
 * until sysfs_port_hw_open(). */
void sysfs_port_hw_close(struct sysfs_device *dev, struct sysfs_port *p);
/*
 * The periodic re-check of a scanned device, without re-opening its files:
 * when every directory the scan listed is as it was (sysfs_dirstamp) and the
 * scan was complete, re-reads the scan-time text (attributes, netdevs) in
 * place and returns 0; the fds stay open. Returns 1 when the device must be
 * scanned again (something changed, or the scan had errors, absent files or
 * per-read files), -ENOMEM (dev unchanged).
 */
int sysfs_device_refresh(int root, struct sysfs_device *dev);
/* Closes every fd. NULL is a no-op. */
void sysfs_device_free(struct sysfs_device *dev);

/*
 * The directory of counter c, relative to the root: of port p, or of the
 * device when p is NULL.
 */
const char *sysfs_counter_dir(const struct sysfs_device *dev, const struct sysfs_port *p,
			      const struct sysfs_counter *c);

#endif
