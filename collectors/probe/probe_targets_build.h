/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Building a probe_target_list one checked entry at a time: the target and
 * label rules of probe_targets.h and the index that finds duplicates. The
 * file reader (probe_targets_parse.c) walks the JSON or YAML and calls these;
 * the rules and the list live in probe_targets.c. Pure: no I/O, no logging.
 *
 * Ownership: a builder borrows the list it fills (out) and owns its index
 * until probe_targets_builder_done(). Threads: one parse, one thread.
 */
#ifndef RDMA_EXPORTER_PROBE_TARGETS_BUILD_H
#define RDMA_EXPORTER_PROBE_TARGETS_BUILD_H

#include <stdbool.h>
#include <stddef.h>

/* probe_targets.h's; declared, not included: that header's .c includes this one. */
struct probe_group;
struct probe_target_list;

/* Room for the reason a target is refused when it names a bad character. */
#define PROBE_TARGETS_REASON 80

struct probe_targets_builder {
	struct probe_target_list *out; /* borrowed: the list being filled */
	size_t *index;		       /* owned: open addressing, 0 empty, else target + 1 */
	size_t index_cap;	       /* a power of 2, at least twice the targets */
};

/* Appends an empty group to the list. 0 or -ENOMEM. */
int probe_targets_add_group(struct probe_targets_builder *b);

/*
 * Adds the target raw[0..n) (a NUL at raw[n]) to the last group: 0 (added,
 * or counted in duplicates when equal to an earlier one), -ENOMEM, or
 * -EINVAL with *why saying what is wrong, worded to follow the quoted target
 * ("is not host, host:port, ..."); *why may point into reason.
 */
int probe_targets_add_target(struct probe_targets_builder *b, const char *raw, size_t n,
			     const char **why, char reason[PROBE_TARGETS_REASON]);

/* NULL, or why name[0..n) is not a label name the file may set. */
const char *probe_targets_label_problem(const char *name, size_t n);

/* Whether a label is dropped rather than kept: "__*", job and instance. */
bool probe_targets_label_dropped(const char *name, size_t n);

/* Counts a dropped label, keeping the first one's name. */
void probe_targets_note_dropped(struct probe_target_list *l, const char *name);

/* Appends name = value (NUL-terminated, nlen and vlen bytes) to group g. 0 or -ENOMEM. */
int probe_targets_add_label(struct probe_group *g, const char *name, size_t nlen, const char *value,
			    size_t vlen);

/* Frees the index; the list stays. */
void probe_targets_builder_done(struct probe_targets_builder *b);

#endif
