/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pure reader of the pingmesh target file, Prometheus's file_sd shape, in
 * JSON or YAML (YAML is a superset of JSON: libyaml reads both):
 *
 *   [
 *     {"targets": ["10.0.0.1", "node2.rdma:4791", "[fd00::3]:4791"],
 *      "labels": {"rack": "r12", "pod": "a"}},
 *     ...
 *   ]
 *
 *   - targets: [10.0.0.1, node2.rdma:4791, "[fd00::3]:4791"]
 *     labels: {rack: r12, pod: a}
 *
 * bytes in, a target list out (probe_targets_parse.c walks libyaml's events
 * from the buffer; probe_targets.c holds the rules and the list). No I/O, no
 * logging, no globals: the caller reads the file, and on error keeps its
 * previous list and logs the one-line message written to err. Threads: any,
 * one call per list.
 *
 * The shape:
 *  - one document, whose top level is an array (YAML: a sequence; possibly
 *    empty) of group objects (mappings);
 *  - "targets" (required): an array of strings. A plain YAML scalar that
 *    reads as null, a boolean or a number (~, true, 12) is not a string;
 *  - "labels" (optional): an object of scalar values, any but null, as
 *    written (YAML's `rack: 12` is "12", as Prometheus reads it);
 *  - any other key of a group is skipped, whatever its value (Prometheus only
 *    knows these two; ignoring the rest lets the file carry annotations);
 *  - a second "targets" or "labels" in one group, or a label name twice in
 *    one "labels" object, is an error; so are YAML aliases (*name) where the
 *    content is read, and merge keys (<<): they are never expanded.
 * YAML accepts what strict JSON does not (comments, single quotes, trailing
 * commas); libyaml refuses UTF-16 surrogate escapes ("\ud83d\ude00": write
 * the character, or \U0001F600).
 *
 * Targets: "host", "host:port", "[ipv6]" or "[ipv6]:port", port 1..65535
 * written in decimal without leading zeros. host is an IPv4 dotted quad or a
 * DNS name (letters, digits, '-', '_', '.', no empty label, at most 63
 * bytes a label); a bracketed host is an IPv6 address, optionally with a
 * zone ("[fe80::1%eth0]"). A bare IPv6 address is refused: "fe80::1:80"
 * would be ambiguous. Targets equal in host (ignoring ASCII case) and port
 * are duplicates: the first one is kept with its group, later ones counted.
 *
 * Label names follow Prometheus, [a-zA-Z_][a-zA-Z0-9_]*. So that a file_sd
 * file Prometheus uses can be used as it is, names starting with "__"
 * (reserved, __meta_*) and "job" and "instance" (the scrape sets them) are
 * dropped, counted in dropped_labels; the caller warns once. "device",
 * "port", "target", "reason" and "le" are the probe metrics' own labels (le:
 * histogram buckets): errors. Label values are any UTF-8 except NUL
 * ("\u0000" is refused in every string). The limits below count the labels
 * kept.
 *
 * Error positions: syntax errors give libyaml's message with "line L,
 * column C" (from 1, columns in characters), "end of file" for a file cut
 * short, or "byte B" (from 0) for bytes that are not UTF-8 text; content
 * errors give the path with 0-based indexes, "[3].targets[1]" or
 * "[0].labels.rack", and the line. A content error is reported only when
 * the whole file is valid YAML: in a file cut short while written, the
 * syntax error is.
 */
#ifndef RDMA_EXPORTER_PROBE_TARGETS_H
#define RDMA_EXPORTER_PROBE_TARGETS_H

#include <stdbool.h>
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
#define PROBE_TARGETS_MAX_KEY	      1024 /* bytes of a group's key (YAML's implicit key limit too) */
#define PROBE_TARGETS_MAX_DEPTH	      16 /* nested arrays and objects, top level is 1 */

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
	uint64_t key;	 /* hash of the lower-cased host and the port: its identity */
};

/* Owned by the list: every string, label and group. */
struct probe_target_list {
	struct probe_target *targets; /* unique, in file order */
	size_t n_targets, cap_targets;
	struct probe_group *groups; /* all groups, also those left without targets */
	size_t n_groups, cap_groups;
	size_t duplicates;     /* target strings dropped as equal to an earlier one */
	size_t dropped_labels; /* labels dropped: "__*", job, instance */
	char dropped_label[PROBE_TARGETS_MAX_LABEL_NAME + 1]; /* the first one's name */
};

/*
 * Parses len bytes of buf (no NUL needed) into *out, which the call
 * initialises (an existing list there is not freed: pass a fresh one).
 * Returns 0, or -EINVAL (malformed JSON or YAML, wrong shape, bad target or label),
 * -EFBIG (len over PROBE_TARGETS_MAX_FILE), -E2BIG (another limit), -ENOMEM.
 * On error *out is empty and err (when errlen > 0) holds one line without
 * a newline, naming the place and, for a limit, the limit; strings from
 * the file are quoted with control bytes escaped and cut after 64 bytes.
 * An empty file (or one of only comments) is an error; "[]" is a valid
 * empty list.
 */
int probe_targets_parse(const char *buf, size_t len, struct probe_target_list *out, char *err,
			size_t errlen);

/* Frees everything the list owns and empties it; NULL is a no-op. */
void probe_target_list_free(struct probe_target_list *l);

/*
 * Which targets this node probes when at most k of the list may be: the k
 * with the highest weight probe_targets_weight(node, target key), rendezvous
 * (highest random weight) hashing. Writes their indexes, ascending, to
 * out_indices and returns their number, min(n, k); weights is scratch. Both
 * have room for min(n, k). k = 0 or an empty list returns 0.
 *
 * The sample depends only on node and the set of targets (not their order,
 * not the time): it stays as long as the file does. Adding a target changes
 * at most one member (the new one comes in, the lightest leaves); removing
 * one not in the sample changes nothing, removing one in it brings in one
 * other. Every node reading the same file picks each target with
 * probability k/n, independently of the others, so with N nodes a target has
 * N x k / n probers on average (binomially spread; docs/pingmesh.md gives
 * the figures of a 2,000-node mesh).
 */
size_t probe_targets_sample(const struct probe_target_list *l, size_t k, uint64_t node,
			    size_t *out_indices, uint64_t *weights);

/* A target's weight for a node: 64 well-mixed bits of both. */
uint64_t probe_targets_weight(uint64_t node, uint64_t key);

#endif
