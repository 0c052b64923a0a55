// SPDX-License-Identifier: Apache-2.0
/*
 * The sysfs collector's scan (sysfs_scan.h): the device list, and each
 * device's attributes, ports, counter files and the directory stamps of its
 * re-check; its value files are sysfs_file.c's, its PCIe side
 * sysfs_pcie_scan.c's.
 */
#include "sysfs_scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysfs_parse.h"

/* One per counter file: keep it small (thousands on a large host). */
_Static_assert(sizeof(struct sysfs_counter) <= 32, "struct sysfs_counter grew past 32 bytes");

/* A growable array of strings, NULL-terminated once finished. */
struct strvec {
	char **v;
	size_t n, cap;
};

static int strvec_push(struct strvec *sv, const char *s, size_t len)
{
	char *copy;

	if (sv->n + 2 > sv->cap) {
		size_t ncap = sv->cap ? sv->cap * 2 : 16;
		char **nv = realloc(sv->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		sv->v = nv;
		sv->cap = ncap;
	}
	copy = strndup(s, len);
	if (!copy)
		return -ENOMEM;
	sv->v[sv->n++] = copy;
	sv->v[sv->n] = NULL;
	return 0;
}

static void strvec_free(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

void sysfs_names_free(char **names)
{
	if (!names)
		return;
	for (char **p = names; *p; p++)
		free(*p);
	free(names);
}

int sysfs_name_cmp(const char *a, const char *b)
{
	return strverscmp(a, b);
}

static int name_cmp_qsort(const void *a, const void *b)
{
	return sysfs_name_cmp(*(char *const *)a, *(char *const *)b);
}

static int path_fmt(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int path_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

enum entry_kind {
	ENTRY_ANY,
	ENTRY_DIR,
	ENTRY_FILE,
};

/* d_type when the filesystem gives it, else (or for a symlink) stat it. */
static bool entry_is(int dfd, const struct dirent *de, enum entry_kind want)
{
	struct stat st;

	switch (want) {
	case ENTRY_ANY:
		return true;
	case ENTRY_DIR:
		if (de->d_type == DT_DIR)
			return true;
		break;
	case ENTRY_FILE:
		if (de->d_type == DT_REG)
			return true;
		break;
	}
	if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
		return false;
	if (fstatat(dfd, de->d_name, &st, 0) < 0)
		return false;
	return want == ENTRY_DIR ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
}

/* Directory times this close to the clock may yet change within the same
 * timestamp tick: such a stamp is not trusted (git's "racy" entries). */
#define STAMP_RACY_S 2

/* Records what path (st, or NULL: missing) looks like now, for the re-check. */
static void stamp_dir(struct sysfs_device *dev, const char *path, const struct stat *st)
{
	struct sysfs_dirstamp *ns, *s;
	struct timespec now;

	if (!dev)
		return;
	ns = realloc(dev->stamps, (dev->n_stamps + 1) * sizeof(*ns));
	if (!ns) {
		dev->stamps_unsure = true;
		return;
	}
	dev->stamps = ns;
	s = &ns[dev->n_stamps];
	*s = (struct sysfs_dirstamp){.path = strdup(path), .absent = !st || !S_ISDIR(st->st_mode)};
	if (!s->path) {
		dev->stamps_unsure = true;
		return;
	}
	dev->n_stamps++;
	if (s->absent)
		return;
	s->dev = st->st_dev;
	s->ino = st->st_ino;
	s->mtime = st->st_mtim;
	s->ctime = st->st_ctim;
	if (clock_gettime(CLOCK_REALTIME, &now) < 0 ||
	    s->mtime.tv_sec > now.tv_sec - STAMP_RACY_S ||
	    s->ctime.tv_sec > now.tv_sec - STAMP_RACY_S)
		dev->stamps_unsure = true;
}

/* A directory that could not be opened: missing is a stamp, anything else
 * leaves the device unsure (scanned again at the re-check). */
static void stamp_failed(struct sysfs_device *dev, const char *path, int err)
{
	if (!dev)
		return;
	if (err == -ENOENT || err == -ENOTDIR)
		stamp_dir(dev, path, NULL);
	else
		dev->stamps_unsure = true;
}

static bool stamp_matches(int root, const struct sysfs_dirstamp *s)
{
	struct stat st;

	if (fstatat(root, s->path, &st, 0) < 0)
		return s->absent && (errno == ENOENT || errno == ENOTDIR);
	if (!S_ISDIR(st.st_mode) || s->absent)
		return s->absent && !S_ISDIR(st.st_mode);
	return st.st_dev == s->dev && st.st_ino == s->ino && st.st_mtim.tv_sec == s->mtime.tv_sec &&
	       st.st_mtim.tv_nsec == s->mtime.tv_nsec && st.st_ctim.tv_sec == s->ctime.tv_sec &&
	       st.st_ctim.tv_nsec == s->ctime.tv_nsec;
}

/*
 * Names in root/path of the wanted kind, unsorted. Returns 0 or -errno.
 * stamp (may be NULL): the device whose re-check should watch this directory.
 */
static int list_dir(int root, const char *path, enum entry_kind want, struct strvec *out,
		    struct sysfs_device *stamp)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, r = 0;

	fd = openat(root, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		stamp_failed(stamp, path, r);
		return r;
	}
	if (stamp) {
		if (fstat(fd, &st) == 0)
			stamp_dir(stamp, path, &st);
		else
			stamp->stamps_unsure = true;
	}
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			r = errno ? -errno : 0;
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (!entry_is(dirfd(d), de, want))
			continue;
		r = strvec_push(out, de->d_name, strlen(de->d_name));
		if (r < 0)
			break;
	}
	closedir(d);
	return r;
}

int sysfs_list_devices(int root, const struct device_filter *filter, char ***names, size_t *n,
		       struct sysfs_listing *info)
{
	struct sysfs_listing scratch;
	struct strvec all = {0}, kept = {0};
	int r;

	*names = NULL;
	*n = 0;
	if (!info)
		info = &scratch;
	*info = (struct sysfs_listing){0};
	/* Entries are symlinks into /sys/devices (directories on old kernels):
	 * accept anything but a plain file without a stat per device per poll. */
	r = list_dir(root, SYSFS_IB_CLASS_DIR, ENTRY_ANY, &all, NULL);
	if (r == -ENOENT || r == -ENOTDIR) {
		info->no_class_dir = true;
		r = 0;
	}
	if (r < 0)
		goto out;
	info->n_present = all.n;
	for (size_t i = 0; i < all.n; i++) {
		enum device_filter_verdict v = device_filter_check(filter, all.v[i]);

		if (v == DEVICE_FILTER_NOT_INCLUDED)
			info->n_not_included++;
		if (v == DEVICE_FILTER_EXCLUDED)
			info->n_excluded++;
		if (v != DEVICE_FILTER_KEEP)
			continue;
		r = strvec_push(&kept, all.v[i], strlen(all.v[i]));
		if (r < 0)
			goto out;
	}
	if (!kept.n) {
		/* Always hand back a list, even an empty one. */
		kept.v = calloc(1, sizeof(*kept.v));
		if (!kept.v) {
			r = -ENOMEM;
			goto out;
		}
	}
	qsort(kept.v, kept.n, sizeof(*kept.v), name_cmp_qsort);
	*names = kept.v;
	*n = kept.n;
	kept.v = NULL;
	kept.n = 0;
out:
	strvec_free(&kept);
	strvec_free(&all);
	return r;
}

static int read_driver(int root, const char *devname, char **out)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *s = "";
	size_t len = 0;
	ssize_t n;
	int r;

	/* class/infiniband/<dev>/device is the parent (PCI) device; rxe and
	 * siw have none. Its driver link names the kernel module. */
	r = path_fmt(path, sizeof(path), "%s/%s/device/driver", SYSFS_IB_CLASS_DIR, devname);
	if (r == 0) {
		n = readlinkat(root, path, target, sizeof(target) - 1);
		if (n > 0 && sysfs_parse_link_basename(target, (size_t)n, &s, &len) < 0) {
			s = "";
			len = 0;
		}
	}
	*out = strndup(s, len);
	return *out ? 0 : -ENOMEM;
}

static void record_scan_error(struct sysfs_device *dev, const char *path, int err)
{
	dev->scan_errors++;
	if (dev->first_scan_error_path)
		return;
	dev->first_scan_error = err;
	dev->first_scan_error_path = strdup(path); /* best effort, only for the log */
}

/* Opens f (its name set) in dir, against the device's fd limit. */
static int file_open(int root, const char *dir, struct sysfs_file *f, struct sysfs_device *dev)
{
	return sysfs_file_open(root, dir, f, dev->fd_limit, &dev->n_reopen_each);
}

/* A port attribute file: name is a literal, its directory the port's. */
static int attr_file_init(int root, struct sysfs_port *p, struct sysfs_file *f, const char *name,
			  struct sysfs_device *dev)
{
	*f = (struct sysfs_file){.name = name, .fd = -1};
	return file_open(root, p->dir, f, dev);
}

/* The port counter directories, in the order of the sources (the order
 * counters are sorted in). */
static const struct {
	const char *dir;
	unsigned source;
} port_counter_dirs[SYSFS_PORT_COUNTER_DIRS] = {
	{"counters", SYSFS_SRC_COUNTERS},
	{"counters_ext", SYSFS_SRC_COUNTERS_EXT},
	{"hw_counters", SYSFS_SRC_HW_COUNTERS},
};

const char *sysfs_counter_dir(const struct sysfs_device *dev, const struct sysfs_port *p,
			      const struct sysfs_counter *c)
{
	if (!p)
		return dev->counters_dir;
	for (size_t i = 0; i < SYSFS_PORT_COUNTER_DIRS; i++)
		if (port_counter_dirs[i].source == c->source)
			return p->counter_dirs[i];
	return NULL;
}

static void counters_free(struct sysfs_counter *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sysfs_file_close(&c[i].file);
	free(c);
}

static int counter_cmp(const void *a, const void *b)
{
	const struct sysfs_counter *ca = a, *cb = b;

	if (ca->source != cb->source)
		return ca->source < cb->source ? -1 : 1;
	return strcmp(ca->file.name, cb->file.name);
}

/* Counter file name of dir, opened. Its name is the name table's string
 * when it is a known counter, a copy otherwise. */
static int counter_init(int root, const char *dir, const char *name, unsigned source,
			struct sysfs_device *dev, struct sysfs_counter *c)
{
	char *copy;
	int r;

	*c = (struct sysfs_counter){.file.fd = -1, .source = (uint8_t)source};
	c->known = sysfs_counter_lookup(name, source);
	if (c->known) {
		c->file.name = c->known->file;
	} else {
		copy = strdup(name);
		if (!copy)
			return -ENOMEM;
		c->file.name = copy;
		c->file.name_owned = true;
	}
	if (source == SYSFS_SRC_HW_COUNTERS && (dev->scan_flags & SYSFS_SCAN_PORT_HW_DEFERRED))
		r = sysfs_file_defer(dir, &c->file);
	else
		r = file_open(root, dir, &c->file, dev);
	if (r < 0)
		sysfs_file_close(&c->file);
	return r;
}

int sysfs_port_hw_open(int root, struct sysfs_device *dev, struct sysfs_port *p)
{
	int r = 0, e;

	for (size_t i = 0; i < p->n_counters; i++) {
		struct sysfs_counter *c = &p->counters[i];

		if (c->source != SYSFS_SRC_HW_COUNTERS || !c->file.deferred)
			continue;
		e = file_open(root, sysfs_counter_dir(dev, p, c), &c->file, dev);
		if (e < 0) {
			r = r ? r : e;
			continue;
		}
		c->file.deferred = false;
	}
	return r;
}

void sysfs_port_hw_close(struct sysfs_device *dev, struct sysfs_port *p)
{
	for (size_t i = 0; i < p->n_counters; i++) {
		struct sysfs_file *f = &p->counters[i].file;

		if (p->counters[i].source != SYSFS_SRC_HW_COUNTERS || f->deferred)
			continue;
		if (f->fd >= 0)
			close(f->fd);
		/* no longer held against the fd limit */
		if (f->reopen_each)
			dev->n_reopen_each--;
		f->fd = -1;
		f->reopen_each = false;
		f->absent = false;
		f->deferred = true;
	}
}

/*
 * Appends one opened counter file per regular file of dir; *dir_out gets
 * the directory's path (owned) when there is one.
 */
static int scan_counter_dir(int root, const char *dir, unsigned source, struct sysfs_device *dev,
			    struct sysfs_counter **counters, size_t *n, char **dir_out)
{
	struct strvec names = {0};
	struct sysfs_counter *nc;
	size_t n0 = *n;
	int r;

	r = list_dir(root, dir, ENTRY_FILE, &names, dev);
	if (r == -ENOENT || r == -ENOTDIR) {
		r = 0; /* most drivers have only some of the directories */
		goto out;
	}
	if (r == -ENOMEM)
		goto out;
	if (r < 0) {
		record_scan_error(dev, dir, r);
		r = 0;
		goto out;
	}
	if (!names.n)
		goto out;
	/* Room for the whole listing at once, not one realloc per file. */
	nc = realloc(*counters, (*n + names.n) * sizeof(**counters));
	if (!nc) {
		r = -ENOMEM;
		goto out;
	}
	*counters = nc;
	for (size_t i = 0; i < names.n; i++) {
		/* hw_counters/lifespan is the driver's cache time in ms. */
		if (sysfs_counter_is_setting(names.v[i], source))
			continue;
		r = counter_init(root, dir, names.v[i], source, dev, &nc[*n]);
		if (r == -ENAMETOOLONG) {
			record_scan_error(dev, dir, r);
			r = 0;
			continue;
		}
		if (r < 0)
			goto out;
		(*n)++;
	}
	if (*n > n0 && !(*dir_out = strdup(dir)))
		r = -ENOMEM;
out:
	strvec_free(&names);
	return r;
}

/*
 * Two files of one port may have one meaning (mlx4: counters/port_rcv_data
 * is 32 bits, counters_ext/port_rcv_data_64 is 64 bits). The higher priority
 * keeps the named family; the others go to the generic one, so no series is
 * duplicated and none is dropped.
 */
static void resolve_duplicates(struct sysfs_counter *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!c[i].known)
			continue;
		for (size_t j = i + 1; j < n; j++) {
			if (!c[j].known || strcmp(c[i].known->metric, c[j].known->metric) != 0)
				continue;
			if (c[j].known->priority > c[i].known->priority) {
				c[i].known = NULL;
				break;
			}
			c[j].known = NULL;
		}
	}
}

static void netdevs_free(char **netdevs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(netdevs[i]);
	free(netdevs);
}

static int netdev_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Distinct netdevs of gid_attrs/ndevs/<index>. Reading an unused GID entry
 * fails (EINVAL, EAGAIN, ENODATA depending on the kernel): that is normal.
 */
static int scan_netdevs(int root, const char *portdir, struct sysfs_port *p)
{
	struct strvec entries = {0}, devs = {0};
	char path[PATH_MAX], buf[256];
	int r;

	r = path_fmt(path, sizeof(path), "%s/gid_attrs/ndevs", portdir);
	if (r < 0)
		return 0;
	r = list_dir(root, path, ENTRY_FILE, &entries, NULL);
	if (r == -ENOMEM)
		goto out;
	r = 0;
	for (size_t i = 0; i < entries.n; i++) {
		const char *s;
		size_t len;
		bool seen = false;
		int n;

		if (path_fmt(path, sizeof(path), "%s/gid_attrs/ndevs/%s", portdir, entries.v[i]))
			continue;
		n = sysfs_read_small(root, path, buf, sizeof(buf));
		if (n < 0 || sysfs_parse_text(buf, (size_t)n, &s, &len) < 0)
			continue;
		for (size_t j = 0; j < devs.n && !seen; j++)
			seen = strlen(devs.v[j]) == len && memcmp(devs.v[j], s, len) == 0;
		if (seen)
			continue;
		r = strvec_push(&devs, s, len);
		if (r < 0)
			goto out;
	}
	if (devs.n)
		qsort(devs.v, devs.n, sizeof(*devs.v), netdev_cmp);
	p->netdevs = devs.v;
	p->n_netdevs = devs.n;
	devs.v = NULL;
	devs.n = 0;
out:
	strvec_free(&devs);
	strvec_free(&entries);
	return r;
}

/* An optional attribute file: kept only when it exists. */
static int optional_file_init(int root, struct sysfs_port *p, struct sysfs_file *f,
			      const char *name, struct sysfs_device *dev)
{
	int r = attr_file_init(root, p, f, name, dev);

	if (r == 0 && f->absent)
		sysfs_file_close(f);
	return r;
}

static int scan_port_files(int root, struct sysfs_port *p, struct sysfs_device *dev)
{
	int r;

	if ((r = attr_file_init(root, p, &p->state, "state", dev)) < 0 ||
	    (r = attr_file_init(root, p, &p->phys_state, "phys_state", dev)) < 0 ||
	    (r = attr_file_init(root, p, &p->rate, "rate", dev)) < 0)
		return r;
	if (!p->is_ib)
		return 0;
	if ((r = optional_file_init(root, p, &p->lid, "lid", dev)) < 0 ||
	    (r = optional_file_init(root, p, &p->sm_lid, "sm_lid", dev)) < 0 ||
	    (r = optional_file_init(root, p, &p->sm_sl, "sm_sl", dev)) < 0)
		return r;
	return 0;
}

static int scan_port(int root, const char *devname, struct sysfs_port *p, struct sysfs_device *dev)
{
	char base[PATH_MAX], path[PATH_MAX];
	int r;

	p->state.fd = p->phys_state.fd = p->rate.fd = p->lid.fd = p->sm_lid.fd = p->sm_sl.fd = -1;
	snprintf(p->num_str, sizeof(p->num_str), "%u", (unsigned)p->num);
	r = path_fmt(base, sizeof(base), "%s/%s/ports/%u", SYSFS_IB_CLASS_DIR, devname,
		     (unsigned)p->num);
	if (r < 0)
		return r;
	p->dir = strdup(base);
	if (!p->dir)
		return -ENOMEM;

	if ((r = path_fmt(path, sizeof(path), "%s/link_layer", base)) < 0 ||
	    (r = sysfs_read_text(root, path, &p->link_layer)) < 0)
		return r;
	p->is_ib = strcmp(p->link_layer, "InfiniBand") == 0;

	r = scan_port_files(root, p, dev);
	if (r < 0)
		return r;
	r = scan_netdevs(root, base, p);
	if (r < 0)
		return r;

	for (size_t i = 0; i < SYSFS_PORT_COUNTER_DIRS; i++) {
		r = path_fmt(path, sizeof(path), "%s/%s", base, port_counter_dirs[i].dir);
		if (r < 0)
			return r;
		r = scan_counter_dir(root, path, port_counter_dirs[i].source, dev, &p->counters,
				     &p->n_counters, &p->counter_dirs[i]);
		if (r < 0)
			return r;
	}
	if (p->n_counters)
		qsort(p->counters, p->n_counters, sizeof(*p->counters), counter_cmp);
	resolve_duplicates(p->counters, p->n_counters);
	for (size_t i = 0; i < p->n_counters; i++)
		if (p->counters[i].source == SYSFS_SRC_COUNTERS &&
		    (strcmp(p->counters[i].file.name, "unicast_xmit_packets") == 0 ||
		     strcmp(p->counters[i].file.name, "unicast_rcv_packets") == 0))
			p->pma_ext = true;
	return 0;
}

static void port_free(struct sysfs_port *p)
{
	free(p->link_layer);
	free(p->dir);
	for (size_t i = 0; i < SYSFS_PORT_COUNTER_DIRS; i++)
		free(p->counter_dirs[i]);
	sysfs_file_close(&p->state);
	sysfs_file_close(&p->phys_state);
	sysfs_file_close(&p->rate);
	sysfs_file_close(&p->lid);
	sysfs_file_close(&p->sm_lid);
	sysfs_file_close(&p->sm_sl);
	netdevs_free(p->netdevs, p->n_netdevs);
	counters_free(p->counters, p->n_counters);
	free(p->labels);
}

static int port_cmp(const void *a, const void *b)
{
	const struct sysfs_port *pa = a, *pb = b;

	return pa->num < pb->num ? -1 : pa->num > pb->num;
}

static int scan_ports(int root, struct sysfs_device *dev)
{
	struct strvec names = {0};
	char path[PATH_MAX];
	size_t n = 0;
	int r;

	r = path_fmt(path, sizeof(path), "%s/%s/ports", SYSFS_IB_CLASS_DIR, dev->name);
	if (r < 0)
		return r;
	r = list_dir(root, path, ENTRY_DIR, &names, dev);
	if (r == -ENOENT || r == -ENOTDIR) {
		r = 0;
		goto out;
	}
	if (r == -ENOMEM)
		goto out;
	if (r < 0) {
		record_scan_error(dev, path, r);
		r = 0;
		goto out;
	}
	if (!names.n)
		goto out;
	dev->ports = calloc(names.n, sizeof(*dev->ports));
	if (!dev->ports) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < names.n; i++) {
		uint32_t num;

		if (sysfs_parse_port_num(names.v[i], strlen(names.v[i]), &num) < 0)
			continue;
		dev->ports[n].num = num;
		dev->n_ports = ++n;
		r = scan_port(root, dev->name, &dev->ports[n - 1], dev);
		if (r == -ENAMETOOLONG) {
			record_scan_error(dev, path, r);
			r = 0;
		}
		if (r < 0)
			goto out;
	}
	qsort(dev->ports, dev->n_ports, sizeof(*dev->ports), port_cmp);
out:
	strvec_free(&names);
	return r;
}

static int scan_attrs(int root, struct sysfs_device *dev)
{
	static const struct {
		const char *file;
		size_t offset;
	} attrs[] = {
		{"hca_type", offsetof(struct sysfs_device, hca_type)},
		{"board_id", offsetof(struct sysfs_device, board_id)},
		{"fw_ver", offsetof(struct sysfs_device, fw_ver)},
		{"node_guid", offsetof(struct sysfs_device, node_guid)},
		{"sys_image_guid", offsetof(struct sysfs_device, sys_image_guid)},
	};
	char path[PATH_MAX];
	int r;

	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		char **field = (char **)((char *)dev + attrs[i].offset);

		r = path_fmt(path, sizeof(path), "%s/%s/%s", SYSFS_IB_CLASS_DIR, dev->name,
			     attrs[i].file);
		if (r < 0)
			return r;
		r = sysfs_read_text(root, path, field);
		if (r < 0)
			return r;
	}
	r = path_fmt(path, sizeof(path), "%s/%s/node_type", SYSFS_IB_CLASS_DIR, dev->name);
	if (r < 0)
		return r;
	r = sysfs_read_node_type(root, path, &dev->node_type);
	if (r < 0)
		return r;
	return read_driver(root, dev->name, &dev->driver);
}

static int fd_limit(unsigned reserve)
{
	struct rlimit rl;

	if (!reserve)
		reserve = SYSFS_FD_HEADROOM;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > INT_MAX)
		return INT_MAX;
	if (rl.rlim_cur <= reserve)
		return 0;
	return (int)(rl.rlim_cur - reserve);
}

int sysfs_device_scan(int root, const char *name, unsigned fd_reserve, unsigned flags,
		      struct sysfs_device **out)
{
	struct sysfs_device *dev;
	char path[PATH_MAX];
	int fd, r;

	*out = NULL;
	r = path_fmt(path, sizeof(path), "%s/%s", SYSFS_IB_CLASS_DIR, name);
	if (r < 0)
		return r;
	fd = openat(root, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->fd_limit = fd_limit(fd_reserve);
	dev->scan_flags = flags;
	dev->name = strdup(name);
	if (!dev->name) {
		r = -ENOMEM;
		goto err;
	}
	r = scan_attrs(root, dev);
	if (r < 0)
		goto err;
	r = scan_ports(root, dev);
	if (r < 0)
		goto err;
	r = path_fmt(path, sizeof(path), "%s/%s/hw_counters", SYSFS_IB_CLASS_DIR, name);
	if (r < 0)
		goto err;
	r = scan_counter_dir(root, path, SYSFS_SRC_DEV_HW_COUNTERS, dev, &dev->counters,
			     &dev->n_counters, &dev->counters_dir);
	if (r < 0)
		goto err;
	if (dev->n_counters)
		qsort(dev->counters, dev->n_counters, sizeof(*dev->counters), counter_cmp);
	resolve_duplicates(dev->counters, dev->n_counters);
	r = path_fmt(path, sizeof(path), "%s/%s", SYSFS_IB_CLASS_DIR, name);
	if (r == 0)
		r = sysfs_pcie_scan(root, path, dev->fd_limit, &dev->n_reopen_each, &dev->pcie);
	if (r == -ENAMETOOLONG) {
		record_scan_error(dev, SYSFS_IB_CLASS_DIR, r);
		r = 0;
	}
	if (r < 0)
		goto err;
	*out = dev;
	return 0;
err:
	sysfs_device_free(dev);
	return r;
}

/* The scan-time text of a device: swapped whole by the re-check. */
static const size_t text_fields[] = {
	offsetof(struct sysfs_device, node_type), offsetof(struct sysfs_device, hca_type),
	offsetof(struct sysfs_device, board_id),  offsetof(struct sysfs_device, fw_ver),
	offsetof(struct sysfs_device, node_guid), offsetof(struct sysfs_device, sys_image_guid),
	offsetof(struct sysfs_device, driver),
};

static char **text_field(struct sysfs_device *dev, size_t i)
{
	return (char **)((char *)dev + text_fields[i]);
}

static void text_free(struct sysfs_device *dev)
{
	for (size_t i = 0; i < sizeof(text_fields) / sizeof(text_fields[0]); i++) {
		free(*text_field(dev, i));
		*text_field(dev, i) = NULL;
	}
}

/* Whether anything of dev failed or was missing at scan time. */
static bool scan_incomplete(const struct sysfs_device *dev)
{
	if (dev->recheck || dev->stamps_unsure || dev->scan_errors || dev->n_reopen_each)
		return true;
	for (size_t i = 0; i < dev->n_ports; i++) {
		const struct sysfs_port *p = &dev->ports[i];

		if (p->state.absent || p->phys_state.absent || p->rate.absent)
			return true;
		for (size_t k = 0; k < p->n_counters; k++) {
			const struct sysfs_file *f = &p->counters[k].file;

			/* deferred: closed on purpose while netlink serves it */
			if (f->absent || (f->fd < 0 && !f->deferred))
				return true;
		}
	}
	for (size_t k = 0; k < dev->n_counters; k++)
		if (dev->counters[k].file.absent || dev->counters[k].file.fd < 0)
			return true;
	return false;
}

/* The new netdevs of every port in fresh[] (dev->n_ports of them). */
static int rescan_netdevs(int root, const struct sysfs_device *dev, struct sysfs_port *fresh)
{
	int r;

	for (size_t i = 0; i < dev->n_ports; i++) {
		if (!dev->ports[i].dir)
			return -ENAMETOOLONG; /* its scan failed: scan again */
		r = scan_netdevs(root, dev->ports[i].dir, &fresh[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

int sysfs_device_refresh(int root, struct sysfs_device *dev)
{
	struct sysfs_device text = {.name = dev->name};
	struct sysfs_port *fresh = NULL;
	int r;

	if (scan_incomplete(dev))
		return 1;
	for (size_t i = 0; i < dev->n_stamps; i++)
		if (!stamp_matches(root, &dev->stamps[i]))
			return 1;
	if (dev->n_ports && !(fresh = calloc(dev->n_ports, sizeof(*fresh))))
		return -ENOMEM;
	r = scan_attrs(root, &text);
	if (r == 0)
		r = rescan_netdevs(root, dev, fresh);
	if (r < 0) {
		text_free(&text);
		goto out;
	}
	/* Complete: swap the new text in, free the old. */
	for (size_t i = 0; i < sizeof(text_fields) / sizeof(text_fields[0]); i++) {
		char *old = *text_field(dev, i);

		*text_field(dev, i) = *text_field(&text, i);
		*text_field(&text, i) = old;
	}
	text_free(&text);
	for (size_t i = 0; i < dev->n_ports; i++) {
		struct sysfs_port *p = &dev->ports[i];
		char **old = p->netdevs;
		size_t n_old = p->n_netdevs;

		p->netdevs = fresh[i].netdevs;
		p->n_netdevs = fresh[i].n_netdevs;
		fresh[i].netdevs = old;
		fresh[i].n_netdevs = n_old;
	}
out:
	for (size_t i = 0; fresh && i < dev->n_ports; i++)
		netdevs_free(fresh[i].netdevs, fresh[i].n_netdevs);
	free(fresh);
	return r == -ENAMETOOLONG ? 1 : r;
}

void sysfs_device_free(struct sysfs_device *dev)
{
	if (!dev)
		return;
	for (size_t i = 0; i < dev->n_ports; i++)
		port_free(&dev->ports[i]);
	free(dev->ports);
	counters_free(dev->counters, dev->n_counters);
	free(dev->counters_dir);
	free(dev->name);
	free(dev->labels);
	text_free(dev);
	free(dev->first_scan_error_path);
	for (size_t i = 0; i < dev->n_stamps; i++)
		free(dev->stamps[i].path);
	free(dev->stamps);
	sysfs_pcie_free(dev->pcie);
	free(dev);
}
