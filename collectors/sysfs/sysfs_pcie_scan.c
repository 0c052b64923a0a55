// SPDX-License-Identifier: Apache-2.0
/*
 * The scan of a device's PCIe side (sysfs_pcie_scan.h): its link and AER
 * files, and the error types each AER file lists.
 */
#include "sysfs_pcie_scan.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sysfs_pcie_parse.h"

/*
 * The PCIe side of a device (sysfs_pcie_scan.h): which link and AER files
 * exist, kept open as the counter files are. The ports above the
 * device are reached through "..": class/infiniband/<dev>/device is a
 * symlink to the PCI function's directory under devices/pci*, so
 * device/.. is the bridge port above it (a root port or a switch downstream
 * port) and device/../.. the one above that. A directory there without
 * current_link_speed (the host bridge "pci0000:00") ends the walk: the
 * switch's upstream port is read only when the parent is a switch
 * downstream port. Of the parent only max_link_speed and max_link_width are
 * read: its current link is the device's own. Nothing here logs.
 */
static const char *const link_files[SYSFS_PCIE_LINK_FILES] = {
	[SYSFS_PCIE_SPEED] = "current_link_speed",
	[SYSFS_PCIE_MAX_SPEED] = "max_link_speed",
	[SYSFS_PCIE_WIDTH] = "current_link_width",
	[SYSFS_PCIE_MAX_WIDTH] = "max_link_width",
};

static const char *const link_dirs[SYSFS_PCIE_LINKS] = {
	[SYSFS_PCIE_DEVICE] = "device",
	[SYSFS_PCIE_PARENT] = "device/..",
	[SYSFS_PCIE_SWITCH_UPSTREAM] = "device/../..",
};

static const char *const aer_files[SYSFS_AER_FILES] = {
	[SYSFS_AER_CORRECTABLE] = "aer_dev_correctable",
	[SYSFS_AER_NONFATAL] = "aer_dev_nonfatal",
	[SYSFS_AER_FATAL] = "aer_dev_fatal",
};

/* An AER file is a page at most. */
#define AER_BUF 4096

/* The device being scanned: its directory and fd budget (as its scan's). */
struct pcie_dev {
	const char *dir; /* class/infiniband/<dev> */
	int fd_limit;
	unsigned *n_reopen_each;
};

static int dir_of(const struct pcie_dev *dev, const char *sub, char **out)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/%s", dev->dir, sub);

	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	*out = strdup(path);
	return *out ? 0 : -ENOMEM;
}

/* Whether name exists in dir (not following a last symlink). */
static bool exists_at(int root, const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	int n = snprintf(path, sizeof(path), "%s/%s", dir, name);

	return n > 0 && (size_t)n < sizeof(path) &&
	       fstatat(root, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* An optional file of dir: kept (name set) only when it opens or exists. */
static int optional_open(int root, const char *dir, struct sysfs_file *f, const char *name,
			 struct pcie_dev *dev)
{
	int r;

	*f = (struct sysfs_file){.name = name, .fd = -1};
	r = sysfs_file_open(root, dir, f, dev->fd_limit, dev->n_reopen_each);
	if (r == 0 && f->absent)
		sysfs_file_close(f);
	return r;
}

/* The link files of one directory; l->dir stays NULL without current_link_speed. */
static int scan_link(int root, struct pcie_dev *dev, enum sysfs_pcie_link_pos pos,
		     struct sysfs_pcie_link *l)
{
	char *dir;
	int r;

	r = dir_of(dev, link_dirs[pos], &dir);
	if (r < 0)
		return r;
	if (!exists_at(root, dir, link_files[SYSFS_PCIE_SPEED])) {
		free(dir);
		return 0;
	}
	l->dir = dir;
	for (size_t i = 0; i < SYSFS_PCIE_LINK_FILES; i++) {
		/* the parent's current link is the device's own: only its
		 * maxima are news (what the peer port supports) */
		if (pos == SYSFS_PCIE_PARENT && (i == SYSFS_PCIE_SPEED || i == SYSFS_PCIE_WIDTH))
			continue;
		r = optional_open(root, dir, &l->files[i], link_files[i], dev);
		if (r < 0)
			return r;
	}
	return 0;
}

static void types_free(struct sysfs_aer *a)
{
	for (size_t i = 0; i < a->n_types; i++)
		free(a->types[i]);
	free(a->types);
	a->types = NULL;
	a->n_types = 0;
}

/* The error types an AER file lists, as read now; none when unreadable. */
static int scan_aer_types(int root, const char *dir, struct sysfs_aer *a)
{
	struct sysfs_aer_entry e[SYSFS_AER_MAX_TYPES];
	char *buf = malloc(AER_BUF);
	size_t n = 0;
	int len, r = 0;

	if (!buf)
		return -ENOMEM;
	len = sysfs_file_read(root, dir, &a->file, buf, AER_BUF);
	if (len < 0 || sysfs_parse_aer(buf, (size_t)len, e, SYSFS_AER_MAX_TYPES, &n) < 0 || !n)
		goto out;
	a->types = calloc(n, sizeof(*a->types));
	if (!a->types) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		a->types[i] = strndup(e[i].name, e[i].name_len);
		if (!a->types[i]) {
			r = -ENOMEM;
			break;
		}
		a->n_types = i + 1;
	}
out:
	free(buf);
	return r;
}

static int scan_aer(int root, const char *dir, struct pcie_dev *dev, struct sysfs_aer *a,
		    const char *name)
{
	int r = optional_open(root, dir, &a->file, name, dev);

	if (r < 0 || !a->file.name)
		return r;
	r = scan_aer_types(root, dir, a);
	/* a file that lists nothing gives nothing: not kept */
	if (r == 0 && !a->n_types)
		sysfs_file_close(&a->file);
	return r;
}

static bool pcie_empty(const struct sysfs_pcie *p)
{
	for (size_t i = 0; i < SYSFS_PCIE_LINKS; i++)
		if (p->link[i].dir)
			return false;
	for (size_t i = 0; i < SYSFS_AER_FILES; i++)
		if (p->aer[i].file.name)
			return false;
	return true;
}

int sysfs_pcie_scan(int root, const char *dir, int fd_limit, unsigned *n_reopen_each,
		    struct sysfs_pcie **out)
{
	struct pcie_dev dev = {.dir = dir, .fd_limit = fd_limit, .n_reopen_each = n_reopen_each};
	struct sysfs_pcie *p;
	char *devdir;
	int r;

	*out = NULL;
	r = dir_of(&dev, "device", &devdir);
	if (r < 0)
		return r;
	/* An SR-IOV VF: its link is the PF's (VF link registers are RsvdZ),
	 * and AER reports through the PF. Hundreds of VFs add no series. */
	if (exists_at(root, devdir, "physfn")) {
		free(devdir);
		return 0;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		free(devdir);
		return -ENOMEM;
	}
	/* fd 0 is a real fd: every file starts closed */
	for (size_t i = 0; i < SYSFS_PCIE_LINKS; i++)
		for (size_t k = 0; k < SYSFS_PCIE_LINK_FILES; k++)
			p->link[i].files[k].fd = -1;
	for (size_t i = 0; i < SYSFS_AER_FILES; i++)
		p->aer[i].file.fd = -1;
	for (size_t i = 0; i < SYSFS_PCIE_LINKS && r == 0; i++) {
		r = scan_link(root, &dev, (enum sysfs_pcie_link_pos)i, &p->link[i]);
		/* above a device without a link of its own (or a root port) there
		 * is nothing to read */
		if (!p->link[i].dir)
			break;
	}
	for (size_t i = 0; i < SYSFS_AER_FILES && r == 0; i++)
		r = scan_aer(root, devdir, &dev, &p->aer[i], aer_files[i]);
	free(devdir);
	if (r < 0 || pcie_empty(p)) {
		sysfs_pcie_free(p);
		return r;
	}
	*out = p;
	return 0;
}

void sysfs_pcie_free(struct sysfs_pcie *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < SYSFS_PCIE_LINKS; i++) {
		for (size_t k = 0; k < SYSFS_PCIE_LINK_FILES; k++)
			sysfs_file_close(&p->link[i].files[k]);
		free(p->link[i].dir);
	}
	for (size_t i = 0; i < SYSFS_AER_FILES; i++) {
		sysfs_file_close(&p->aer[i].file);
		types_free(&p->aer[i]);
	}
	free(p);
}
