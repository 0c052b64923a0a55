/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pure parser of the pingmesh target file, in Prometheus file_sd JSON form:
 *
 *   [
 *     {"targets": ["10.0.0.1", "node2.rdma:4791", "[fd00::3]:4791"],
 *      "labels": {"rack": "r12", "pod": "a"}},
 *     ...
 *   ]
 *
 * bytes in, a target list out. No I/O, no logging, no globals: the caller
 * reads the file, and on error keeps its previous list and logs the one-line
 * message written to err.
 *
 * The JSON reader is strict RFC 8259 (UTF-8 checked, \uXXXX escapes with
 * surrogate pairs decoded to UTF-8, no comments, no trailing commas, one
 * top-level value, a leading UTF-8 BOM skipped) for exactly this shape:
 *  - the top level is an array (possibly empty) of group objects;
 *  - "targets" (required): an array of strings;
 *  - "labels" (optional): an object of string values;
 *  - any other key of a group is skipped, whatever its value (Prometheus only
 *    knows these two; ignoring the rest lets the file carry annotations).
 *    Numbers, booleans and null are accepted only inside such skipped values.
 *  - a second "targets" or "labels" in one group, or a label name twice in
 *    one "labels" object, is an error.
 *
 * Targets: "host", "host:port", "[ipv6]" or "[ipv6]:port", port 1..65535
 * written in decimal without leading zeros. host is an IPv4 dotted quad or a
 * DNS name (letters, digits, '-', '_', '.', no empty label, at most 63
 * bytes a label); a bracketed host is an IPv6 address, optionally with a
 * zone ("[fe80::1%eth0]"). A bare IPv6 address is refused: "fe80::1:80"
 * would be ambiguous. Targets equal in host (ignoring ASCII case) and port
 * are duplicates: the first one is kept with its group, later ones counted.
 *
 * Label names follow Prometheus, [a-zA-Z_][a-zA-Z0-9_]*; names starting with
 * "__" are reserved, and "device", "port", "target", "reason" and "le" are
 * the probe metrics' own labels (le: histogram buckets): all are errors. Label values are any UTF-8
 * except NUL ("\u0000" is refused in every string).
 *
 * Error positions: syntax errors give "line L, column C (byte B)" (column
 * and byte counted in bytes from 1 and 0); content errors give the JSON
 * path with 0-based indexes, "[3].targets[1]" or "[0].labels.rack", and the
 * line.
 */
#ifndef RDMA_EXPORTER_PROBE_TARGETS_H
#define RDMA_EXPORTER_PROBE_TARGETS_H

#include <stddef.h>
#include <stdint.h>

/* Limits; going past one is an error that names it (-EFBIG or -E2BIG). */
#define PROBE_TARGETS_MAX_FILE	      (16u << 20) /* bytes of the whole file */
#define PROBE_TARGETS_MAX_TARGETS     100000	  /* target strings, duplicates included */
#define PROBE_TARGETS_MAX_GROUPS      100000	  /* group objects */
#define PROBE_TARGETS_MAX_HOST	      255	  /* bytes of host, brackets and port excluded */
#define PROBE_TARGETS_MAX_TARGET      (PROBE_TARGETS_MAX_HOST + 8) /* "[" host "]:65535" */
#define PROBE_TARGETS_MAX_LABEL_NAME  128			   /* bytes */
#define PROBE_TARGETS_MAX_LABEL_VALUE 256			   /* bytes, after unescaping */
#define PROBE_TARGETS_MAX_LABELS      32			   /* labels of one group */
/*
 * Bytes of a group's label names and values together: what each of its
 * targets adds to every one of its ~50 series (docs/pingmesh.md, "Costs",
 * states the page size this bounds).
 */
#define PROBE_TARGETS_MAX_LABEL_BYTES 512
#define PROBE_TARGETS_MAX_KEY	      1024 /* bytes of any object key */
#define PROBE_TARGETS_MAX_DEPTH	      16   /* nested arrays and objects, top level is 1 */

struct probe_label {
	char *name;	   /* owns the allocation that value lies in */
	const char *value; /* in name's allocation, after its NUL */
};

/* One group object: its labels in file order. */
struct probe_group {
	struct probe_label *labels;
	size_t n_labels, cap_labels;
};

struct probe_target {
	char *host;	 /* without brackets: "10.0.0.1", "fe80::1%eth0"; owns raw too */
	uint16_t port;	 /* 0: none written, the prober's default */
	const char *raw; /* the string as written, the `target` label value; in host's allocation */
	size_t group;	 /* index into groups[] */
};

/* Owned by the list: every string, label and group. */
struct probe_target_list {
	struct probe_target *targets; /* unique, in file order */
	size_t n_targets, cap_targets;
	struct probe_group *groups; /* all groups, also those left without targets */
	size_t n_groups, cap_groups;
	size_t duplicates; /* target strings dropped as equal to an earlier one */
};

/*
 * Parses len bytes of buf (no NUL needed) into *out, which the call
 * initialises (an existing list there is not freed: pass a fresh one).
 * Returns 0, or -EINVAL (malformed JSON, wrong shape, bad target or label),
 * -EFBIG (len over PROBE_TARGETS_MAX_FILE), -E2BIG (another limit), -ENOMEM.
 * On error *out is empty and err (when errlen > 0) holds one line without
 * a newline, naming the place and, for a limit, the limit; strings from
 * the file are quoted with control bytes escaped and cut after 64 bytes.
 * An empty file is an error; "[]" is a valid empty list.
 */
int probe_targets_parse(const char *buf, size_t len, struct probe_target_list *out, char *err,
			size_t errlen);

/* Frees everything the list owns and empties it; NULL is a no-op. */
void probe_target_list_free(struct probe_target_list *l);

/*
 * Which targets to probe in round `round` when at most k of n may be:
 * writes the indexes to out_indices (room for min(n, k)) and returns their
 * number. With n <= k, all of them: 0..n-1. Otherwise a rotating window of
 * k consecutive indexes, wrapping at n:
 *
 *   out_indices[i] = (round * k + i) mod n,  i = 0..k-1
 *
 * computed without overflow for any round. Round r+1 starts where round r
 * stopped, so any ceil(n/k) consecutive rounds probe every target at least
 * once, and no target is probed twice before all were probed once (except
 * the overlap of the last, wrapping window). k = 0 or n = 0 returns 0.
 * (round wrapping from UINT64_MAX to 0 breaks the rotation once: at one
 * round a nanosecond, after 584 years.) When the file changes, n changes
 * and the window moves; rounds go on, coverage restarts from there.
 *
 * In a mesh every node reads the same file, so nodes using the same round
 * would all probe the same k peers in the same interval. A caller adds a
 * per-node offset to round (a hash of its own address, say) so that nodes
 * start at different windows and the load spreads over the peers.
 */
size_t probe_targets_sample(size_t n, size_t k, uint64_t round, size_t *out_indices);

#endif
