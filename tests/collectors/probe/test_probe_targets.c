// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the file_sd target file reader (JSON and YAML) and the rendezvous-hash sample. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probe_targets.h"

static char err[512];

/* Parses s from an exactly sized heap copy, so ASan sees any overread. */
static int parse_n(const char *s, size_t n, struct probe_target_list *l)
{
	char *copy = malloc(n ? n : 1);
	int rc;

	assert_non_null(copy);
	memcpy(copy, s, n);
	memset(err, 'x', sizeof(err));
	rc = probe_targets_parse(copy, n, l, err, sizeof(err));
	free(copy);
	if (rc) {
		/* One line, and the list is left empty. */
		assert_true(err[0] != 0);
		assert_null(strchr(err, '\n'));
		assert_int_equal(l->n_targets, 0);
		assert_int_equal(l->n_groups, 0);
		assert_null(l->targets);
		assert_null(l->groups);
	}
	return rc;
}

static int parse(const char *s, struct probe_target_list *l)
{
	return parse_n(s, strlen(s), l);
}

/* s must fail with rc and a message containing want. */
static void expect_error(const char *s, int rc, const char *want)
{
	struct probe_target_list l;

	assert_int_equal(parse(s, &l), rc);
	if (!strstr(err, want))
		fail_msg("input %s: message \"%s\" lacks \"%s\"", s, err, want);
	probe_target_list_free(&l);
}

static const char *label(const struct probe_target_list *l, size_t g, const char *name)
{
	const struct probe_group *grp = &l->groups[g];

	for (size_t i = 0; i < grp->n_labels; i++)
		if (!strcmp(grp->labels[i].name, name))
			return grp->labels[i].value;
	return NULL;
}

static const char realistic[] =
	"[\n"
	"  {\n"
	"    \"targets\": [\"10.0.0.1\", \"10.0.0.2:4791\", \"node3.rdma.example.com\"],\n"
	"    \"labels\": {\"rack\": \"r12\", \"pod\": \"a\"}\n"
	"  },\n"
	"  {\n"
	"    \"labels\": {\"rack\": \"r13\", \"zone\": \"eu-west\"},\n"
	"    \"targets\": [\"[fd00::3]:4791\", \"[fe80::1%mlx5_0]\", \"Node4\"]\n"
	"  },\n"
	"  {\"targets\": [\"node5:18515\"], \"comment\": {\"owner\": \"netops\", \"n\": 3}}\n"
	"]\n";

static void test_realistic(void **state)
{
	struct probe_target_list l;
	const struct probe_target *t;

	assert_int_equal(parse(realistic, &l), 0);
	assert_int_equal(l.n_groups, 3);
	assert_int_equal(l.n_targets, 7);
	assert_int_equal(l.duplicates, 0);
	t = l.targets;
	assert_string_equal(t[0].host, "10.0.0.1");
	assert_int_equal(t[0].port, 0);
	assert_string_equal(t[0].raw, "10.0.0.1");
	assert_int_equal(t[0].group, 0);
	assert_string_equal(t[1].host, "10.0.0.2");
	assert_int_equal(t[1].port, 4791);
	assert_string_equal(t[1].raw, "10.0.0.2:4791");
	assert_string_equal(t[2].host, "node3.rdma.example.com");
	assert_string_equal(t[3].host, "fd00::3");
	assert_int_equal(t[3].port, 4791);
	assert_string_equal(t[3].raw, "[fd00::3]:4791");
	assert_int_equal(t[3].group, 1);
	assert_string_equal(t[4].host, "fe80::1%mlx5_0");
	assert_int_equal(t[4].port, 0);
	assert_string_equal(t[5].host, "Node4");
	assert_string_equal(t[6].host, "node5");
	assert_int_equal(t[6].port, 18515);
	assert_int_equal(t[6].group, 2);

	assert_int_equal(l.groups[0].n_labels, 2);
	assert_string_equal(l.groups[0].labels[0].name, "rack");
	assert_string_equal(label(&l, 0, "rack"), "r12");
	assert_string_equal(label(&l, 0, "pod"), "a");
	assert_string_equal(label(&l, 1, "zone"), "eu-west");
	assert_int_equal(l.groups[2].n_labels, 0);
	probe_target_list_free(&l);
	assert_null(l.targets);
	probe_target_list_free(&l); /* twice is fine: the list is empty */
}

/* The same file as realistic, in YAML's block style, with what YAML adds. */
static const char realistic_yaml[] = "# the pingmesh, as Prometheus's file_sd reads it too\n"
				     "---\n"
				     "- targets:\n"
				     "    - 10.0.0.1\n"
				     "    - 10.0.0.2:4791\n"
				     "    - node3.rdma.example.com # a comment\n"
				     "  labels:\n"
				     "    rack: r12\n"
				     "    pod: 'a'\n"
				     "- labels: {rack: r13, zone: eu-west}\n"
				     "  targets: [\"[fd00::3]:4791\", '[fe80::1%mlx5_0]', Node4]\n"
				     "- targets: [node5:18515]\n"
				     "  comment:\n"
				     "    owner: netops\n"
				     "    n: 3\n"
				     "...\n";

/* Both lists hold the same targets, groups and labels. */
static void assert_same_list(const struct probe_target_list *a, const struct probe_target_list *b)
{
	assert_int_equal(a->n_targets, b->n_targets);
	assert_int_equal(a->n_groups, b->n_groups);
	for (size_t i = 0; i < a->n_targets; i++) {
		assert_string_equal(a->targets[i].raw, b->targets[i].raw);
		assert_string_equal(a->targets[i].host, b->targets[i].host);
		assert_int_equal(a->targets[i].port, b->targets[i].port);
		assert_int_equal(a->targets[i].group, b->targets[i].group);
		assert_true(a->targets[i].key == b->targets[i].key);
	}
	for (size_t g = 0; g < a->n_groups; g++) {
		assert_int_equal(a->groups[g].n_labels, b->groups[g].n_labels);
		for (size_t i = 0; i < a->groups[g].n_labels; i++) {
			assert_string_equal(a->groups[g].labels[i].name,
					    b->groups[g].labels[i].name);
			assert_string_equal(a->groups[g].labels[i].value,
					    b->groups[g].labels[i].value);
		}
	}
}

static void test_yaml_file_sd(void **state)
{
	struct probe_target_list j, y;

	assert_int_equal(parse(realistic, &j), 0);
	assert_int_equal(parse(realistic_yaml, &y), 0);
	assert_same_list(&j, &y);
	probe_target_list_free(&y);
	/* Without "---" and "...", and an empty list as YAML writes it. */
	assert_int_equal(parse(strstr(realistic_yaml, "- targets"), &y), 0);
	assert_int_equal(y.n_targets, 7);
	probe_target_list_free(&y);
	probe_target_list_free(&j);
	assert_int_equal(parse("# nothing yet\n--- []\n", &y), 0);
	assert_int_equal(y.n_groups, 0);
	probe_target_list_free(&y);
	/* Only comments: as empty as an empty file. */
	expect_error("# nothing yet\n", -EINVAL, "empty file");
	expect_error("---\n", -EINVAL, "expected the top-level array");
}

/* Errors in a YAML file name the place by path and line, as in JSON. */
static void test_yaml_errors(void **state)
{
	expect_error("- targets: [a]\n"
		     "- targets:\n"
		     "    - b\n"
		     "    - a:b:c\n",
		     -EINVAL,
		     "[1].targets[1] (line 4): \"a:b:c\" is not host, host:port, [ipv6] or "
		     "[ipv6]:port");
	/* Unquoted, a bracketed IPv6 target is a YAML flow sequence. */
	expect_error("- targets:\n    - [fd00::3]:4791\n", -EINVAL, "");
	expect_error("- targets: [a]\n  labels:\n    rack: r1\n    device: x\n", -EINVAL,
		     "[0].labels (line 4): \"device\" is a label of the probe metrics themselves");
	expect_error("- targets: a\n", -EINVAL,
		     "[0].targets (line 1): expected an array of strings, got a string");
	expect_error("- targets: [a]\n  labels:\n    rack:\n", -EINVAL,
		     "[0].labels.rack (line 3): expected a string value, got null");
	expect_error("targets: [a]\n", -EINVAL,
		     "line 1, column 1: expected the top-level array [{\"targets\": [...]}, ...], "
		     "got an object");
	expect_error("- targets: [a]\n  targets: [b]\n", -EINVAL,
		     "[0] (line 2): duplicate key \"targets\"");
	/* Aliases are not followed where the file's content is read. */
	expect_error("- targets: &t [a]\n- targets: *t\n", -EINVAL,
		     "[1].targets (line 2): expected an array of strings, got the alias *t "
		     "(not supported)");
	expect_error("- targets: [&h a, *h]\n", -EINVAL, "got the alias *h (not supported)");
	expect_error("- labels: &l {rack: r1}\n  targets: []\n- targets: []\n  labels: *l\n",
		     -EINVAL, "[1].labels (line 4): expected an object of strings, got the alias");
	expect_error("- targets: []\n  labels: {rack: *r}\n", -EINVAL, "got the alias *r");
	expect_error("- &g {targets: [a]}\n- *g\n", -EINVAL,
		     "[1] (line 2): expected a group object");
	expect_error("- targets: []\n  <<: {labels: {rack: r1}}\n", -EINVAL,
		     "[0] (line 2): merge keys (<<) are not supported: write the keys out");
	expect_error("- targets: []\n  labels: {<<: {rack: r1}}\n", -EINVAL,
		     "\"<<\" is not a label name");
	/* A tag says what a scalar is. */
	expect_error("- targets: [!!int 12]\n", -EINVAL, "got a number");
	expect_error("- targets: []\n  labels: {a: !!null x}\n", -EINVAL, "got null");
}

/*
 * A content error is reported only when the whole file is valid YAML: in a
 * file cut short (written in place, read half way), the syntax error at
 * its end is the one to report, not what its first half seemed to say.
 */
static void test_syntax_error_first(void **state)
{
	expect_error("[{\"targets\": [\"a:b:c\"]}, {\"targets\": [\"b\"", -EINVAL,
		     "end of file: did not find expected ',' or ']'");
	expect_error("- targets: [a:b:c]\n- targets: [b\n", -EINVAL, "end of file:");
	expect_error("- targets: [a:b:c]\n- targets: [b]\n", -EINVAL, "is not host");
	/* ... and the depth limit, wherever it is hit. */
	expect_error("[{\"targets\": [1]}, {\"x\": [[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]}]", -E2BIG,
		     "line 1, column 40: nested deeper than 16 levels (the limit)");
}

/* Nesting in YAML's block style counts as in flow style; an alias bomb in
 * a skipped value costs nothing: aliases are never expanded. */
static void test_yaml_nesting(void **state)
{
	struct probe_target_list l;
	char buf[2048];
	size_t o;

	for (int extra = 14; extra <= 15; extra++) {
		o = (size_t)snprintf(buf, sizeof(buf), "- targets: []\n  x:\n");
		for (int i = 0; i < extra; i++)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%*s- \n", 2 * i + 4, "");
		snprintf(buf + o - 1, sizeof(buf) - o + 1, "1\n");
		if (extra == 14) {
			assert_int_equal(parse(buf, &l), 0);
			probe_target_list_free(&l);
		} else {
			expect_error(buf, -E2BIG, "nested deeper than 16 levels (the limit)");
		}
	}
	o = (size_t)snprintf(buf, sizeof(buf), "- targets: [a]\n  x:\n    a: &a [x, x, x, x]\n");
	for (char c = 'b'; c <= 'z'; c++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o,
				      "    %c: &%c [*%c, *%c, *%c, *%c]\n", c, c, c - 1, c - 1,
				      c - 1, c - 1);
	assert_int_equal(parse(buf, &l), 0);
	assert_int_equal(l.n_targets, 1);
	probe_target_list_free(&l);
}

static void test_empty_list(void **state)
{
	static const char *const ok[] = {
		"[]", " [ ]\n", "\r\n\t[\n]\n\n", "\xef\xbb\xbf[]", "[{\"targets\": []}]",
	};
	struct probe_target_list l;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(parse(ok[i], &l), 0);
		assert_int_equal(l.n_targets, 0);
		probe_target_list_free(&l);
	}
}

static void test_empty_file(void **state)
{
	struct probe_target_list l;

	expect_error("", -EINVAL, "empty file");
	expect_error(" \n\t\r\n", -EINVAL, "empty file");
	expect_error("\xef\xbb\xbf", -EINVAL, "empty file");
	assert_int_equal(probe_targets_parse(NULL, 0, &l, err, sizeof(err)), -EINVAL);
	assert_int_equal(probe_targets_parse(NULL, 1, &l, err, sizeof(err)), -EINVAL);
	assert_int_equal(probe_targets_parse("[]", 2, NULL, err, sizeof(err)), -EINVAL);
}

static void test_malformed(void **state)
{
	/* libyaml's syntax errors, with the line and column it gives. */
	static const struct {
		const char *in, *want;
	} cases[] = {
		{"[", "end of file: did not find expected node content"},
		{"{}", "line 1, column 1: expected the top-level array"},
		{"\"targets\"",
		 "expected the top-level array [{\"targets\": [...]}, ...], got a string"},
		{"7", "expected the top-level array [{\"targets\": [...]}, ...], got a number"},
		{"~", "got null"},
		{"[{", "end of file: did not find expected node content"},
		{"[{\"targets\"", "end of file: did not find expected ',' or '}'"},
		{"[{\"targets\":", "end of file: did not find expected node content"},
		{"[{\"targets\":[\"a",
		 "end of file: found unexpected end of stream (while scanning a "
		 "quoted scalar started at line 1, column 14)"},
		{"[{\"targets\":[\"a\"", "end of file: did not find expected ',' or ']' (while "
					 "parsing a flow sequence started at line 1, column 13)"},
		{"[{\"targets\":[\"a\"]", "did not find expected ',' or '}'"},
		{"[{\"targets\":[\"a\"]}", "did not find expected ',' or ']'"},
		{"[,]", "line 1, column 2: did not find expected node content"},
		{"[{\"targets\" [\"a\"]}]", "line 1, column 13: did not find expected ',' or '}'"},
		{"[{\"targets\":[\"a\"] \"labels\":{}}]", "did not find expected ',' or '}'"},
		{"[{\"targets\":[\"a\" \"b\"]}]", "did not find expected ',' or ']'"},
		{"[{\"targets\":[\"a\\x\"]}]", "did not find expected hexdecimal number"},
		{"[{\"targets\":[\"a\\q\"]}]", "found unknown escape character"},
		{"[{\"targets\":[\"a\"]}]\n[]",
		 "line 2, column 1: did not find expected <document start>"},
		{"\n\n  [{\"targets\":[\"a\"]}] x",
		 "line 3, column 23: did not find expected <document start>"},
		{"[]]", "line 1, column 3: did not find expected <document start>"},
		{"[] []", "did not find expected <document start>"},
		{"[]\x01", "byte 2: control characters are not allowed (0x1"},
		{"\xef\xbb\xbf[]\x01", "byte 5: control characters are not allowed"},
		{"[]\n---\n[]",
		 "line 2, column 1: a second YAML document after the top-level array"},
		{"- targets: [a]\n labels: {}",
		 "line 2, column 2: did not find expected '-' indicator (while parsing a block "
		 "collection started at line 1, column 1)"},
		{"- targets: [a]\n\t- b", "found character that cannot start any token"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_error(cases[i].in, -EINVAL, cases[i].want);
	/* A NUL inside the data is a byte like any other: it is not an end. */
	{
		struct probe_target_list l;

		assert_int_equal(parse_n("[]\0", 3, &l), -EINVAL);
		assert_non_null(strstr(err, "byte 2: control characters are not allowed (0x0"));
	}
}

/* Every proper prefix of a valid file is an error, at every position. */
static void test_every_prefix_fails(void **state)
{
	size_t full = strlen(realistic);
	struct probe_target_list l;

	while (full && realistic[full - 1] == '\n')
		full--;
	for (size_t n = 0; n < full; n++)
		assert_int_equal(parse_n(realistic, n, &l), -EINVAL);
	assert_int_equal(parse_n(realistic, full, &l), 0);
	probe_target_list_free(&l);
}

static void test_wrong_types(void **state)
{
	struct probe_target_list l;

	expect_error("[[]]", -EINVAL, "[0] (line 1): expected a group object");
	expect_error("[1]", -EINVAL,
		     "[0] (line 1): expected a group object {\"targets\": [...]}, "
		     "got a number");
	expect_error("[null]", -EINVAL, "got null");
	expect_error("[{}]", -EINVAL, "[0] (line 1): group without \"targets\"");
	expect_error("[{\"labels\":{}}]", -EINVAL, "group without \"targets\"");
	expect_error("[{\"targets\":\"a\"}]", -EINVAL,
		     "[0].targets (line 1): expected an array of strings, got a string");
	expect_error("[{\"targets\":{}}]", -EINVAL, "got an object");
	expect_error("[{\"targets\":null}]", -EINVAL, "got null");
	expect_error("[{\"targets\":[\"a\", 1]}]", -EINVAL,
		     "[0].targets[1] (line 1): expected a string \"host[:port]\", got a number");
	expect_error("[{\"targets\":[\"a\", [\"b\"]]}]", -EINVAL, "got an array");
	expect_error("[{\"targets\":[true]}]", -EINVAL, "got a boolean");
	expect_error("[{\"targets\":[\"a\", ~]}]", -EINVAL, "got null");
	expect_error("[{\"targets\":[0x1f, 1e3, .inf, -.5]}]", -EINVAL, "got a number");
	expect_error("[{\"targets\":[], \"labels\":[]}]", -EINVAL,
		     "[0].labels (line 1): expected an object of strings, got an array");
	expect_error("[{\"targets\":[], \"labels\":{\"a\": null}}]", -EINVAL,
		     "[0].labels.a (line 1): expected a string value, got null");
	expect_error("[{\"targets\":[], \"labels\":{\"a\": }}]", -EINVAL, "got null");
	expect_error("[{\"targets\":[], \"labels\":{\"a\": {}}}]", -EINVAL, "got an object");
	expect_error("[{\"targets\":[], \"labels\":{[a]: b}}]", -EINVAL,
		     "[0].labels (line 1): expected a string key (a label name), got an array");
	expect_error("[{[targets]: []}]", -EINVAL,
		     "[0] (line 1): expected a string key, got an array");
	/* A label value is any scalar but null, as written: YAML's `rack: 12` is
	 * "12", as Prometheus reads it; a quoted or tagged one is a string too. */
	assert_int_equal(
		parse("[{\"targets\":[\"10.0.0.1\", !!str 7, \"8\"], \"labels\":{\"a\": 1, "
		      "\"b\": false, \"c\": 0x1F, \"d\": \"~\", \"e\": !!str null}}]",
		      &l),
		-EINVAL);
	assert_non_null(strstr(err, "[0].targets[1] (line 1): \"7\" has a host of digits"));
	assert_int_equal(parse("[{\"targets\":[\"10.0.0.1\"], \"labels\":{\"a\": 1, \"b\": false, "
			       "\"c\": 0x1F, \"d\": \"~\", \"e\": !!str null}}]",
			       &l),
			 0);
	assert_string_equal(label(&l, 0, "a"), "1");
	assert_string_equal(label(&l, 0, "b"), "false");
	assert_string_equal(label(&l, 0, "c"), "0x1F");
	assert_string_equal(label(&l, 0, "d"), "~");
	assert_string_equal(label(&l, 0, "e"), "null");
	probe_target_list_free(&l);
}

static void test_unknown_keys(void **state)
{
	struct probe_target_list l;

	assert_int_equal(parse("[{\"x\": [1, -2.5e+3, 0.1, 1E9, -0, true, false, null,"
			       " {\"y\": \"z\", \"y\": []}, \"\\u00e9\"], \"targets\": [\"a\"],"
			       " \"x\": 1}]",
			       &l),
			 0);
	assert_int_equal(l.n_targets, 1);
	probe_target_list_free(&l);
	/* Whatever YAML a skipped value holds: anchors, aliases, tags, complex keys. */
	assert_int_equal(parse("- targets: [a]\n"
			       "  x: &anchor {k: [1, 2]}\n"
			       "  y: *anchor\n"
			       "  z: !custom {? [a, b] : c, NaN: 01}\n"
			       "  w: |\n"
			       "    literal text\n",
			       &l),
			 0);
	assert_int_equal(l.n_targets, 1);
	probe_target_list_free(&l);
}

static void test_duplicate_keys(void **state)
{
	expect_error("[{\"targets\":[\"a\"], \"targets\":[\"b\"]}]", -EINVAL,
		     "[0] (line 1): duplicate key \"targets\"");
	expect_error("[{\"targets\":[], \"labels\":{}, \"labels\":{}}]", -EINVAL,
		     "duplicate key \"labels\"");
	expect_error("[{\"targets\":[], \"labels\":{\"a\":\"1\", \"b\":\"2\", \"a\":\"3\"}}]",
		     -EINVAL, "[0].labels (line 1): duplicate label \"a\"");
	/* An escape spelling the same key is the same key. */
	expect_error("[{\"targets\":[], \"t\\u0061rgets\":[]}]", -EINVAL,
		     "duplicate key \"targets\"");
}

/* A Prometheus file_sd file as it is: reserved, meta, job and instance
 * labels are dropped and counted (the caller warns once), the others kept. */
static void test_dropped_labels(void **state)
{
	static const char *const dropped[] = {"__",	    "__address__", "__meta_x", "__name__",
					      "__scheme__", "job",	   "instance"};
	struct probe_target_list l;
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++) {
		snprintf(buf, sizeof(buf),
			 "[{\"targets\":[\"a\"], \"labels\":{\"rack\":\"r1\", \"%s\":\"v\", "
			 "\"pod\":\"p\"}}]",
			 dropped[i]);
		assert_int_equal(parse(buf, &l), 0);
		assert_int_equal(l.groups[0].n_labels, 2);
		assert_string_equal(label(&l, 0, "rack"), "r1");
		assert_string_equal(label(&l, 0, "pod"), "p");
		assert_null(label(&l, 0, dropped[i]));
		assert_int_equal(l.dropped_labels, 1);
		assert_string_equal(l.dropped_label, dropped[i]);
		probe_target_list_free(&l);
	}
	/* Counted over the file, the first one named; not in the limits. */
	assert_int_equal(
		parse("[{\"targets\":[\"a\"], \"labels\":{\"job\":\"rdma\", \"__meta_dc\":\"x\"}},"
		      " {\"targets\":[\"b\"], \"labels\":{\"instance\":\"b:9879\", "
		      "\"job\":\"rdma\", \"job\":\"twice\"}}]",
		      &l),
		0);
	assert_int_equal(l.dropped_labels, 5);
	assert_string_equal(l.dropped_label, "job");
	assert_int_equal(l.groups[0].n_labels, 0);
	assert_int_equal(l.groups[1].n_labels, 0);
	probe_target_list_free(&l);
	/* The probe series' own labels are still errors: they would be overwritten. */
	expect_error("[{\"targets\":[], \"labels\":{\"job\":\"j\", \"device\":\"v\"}}]", -EINVAL,
		     "[0].labels (line 1): \"device\" is a label of the probe metrics themselves");
	/* Names still have to be names, and values bounded. */
	expect_error("[{\"targets\":[], \"labels\":{\"__a-b\":\"v\"}}]", -EINVAL,
		     "is not a label name");
	assert_int_equal(parse("[{\"targets\":[], \"labels\":{}}]", &l), 0);
	assert_int_equal(l.dropped_labels, 0);
	probe_target_list_free(&l);
}

static void test_label_names(void **state)
{
	static const char *const good[] = {"_", "_a", "a_1", "Device", "PORT", "targets", "rack"};
	static const char *const bad[] = {"", "1a", "a-b", "a.b", "a b", "\\u00e9"};
	static const char *const own[] = {"device", "port", "target", "reason", "le"};
	struct probe_target_list l;
	char buf[128];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(buf, sizeof(buf), "[{\"targets\":[], \"labels\":{\"%s\":\"v\"}}]",
			 good[i]);
		assert_int_equal(parse(buf, &l), 0);
		assert_string_equal(l.groups[0].labels[0].name, good[i]);
		probe_target_list_free(&l);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "[{\"targets\":[], \"labels\":{\"%s\":\"v\"}}]", bad[i]);
		expect_error(buf, -EINVAL, "is not a label name ([a-zA-Z_][a-zA-Z0-9_]*)");
	}
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		snprintf(buf, sizeof(buf), "[{\"targets\":[], \"labels\":{\"%s\":\"v\"}}]", own[i]);
		expect_error(buf, -EINVAL, "is a label of the probe metrics themselves");
	}
	/* Empty values are kept as written. */
	assert_int_equal(parse("[{\"targets\":[], \"labels\":{\"a\":\"\"}}]", &l), 0);
	assert_string_equal(l.groups[0].labels[0].value, "");
	probe_target_list_free(&l);
}

static void test_bad_targets(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{"a:b:c", "\"a:b:c\" is not host, host:port, [ipv6] or [ipv6]:port"},
		{"::1", "is not host, host:port, [ipv6] or [ipv6]:port"},
		{"fe80::1:80", "is not host"},
		{"[::1", "is not host"},
		{"[::1]x", "is not host"},
		{"[::1] :80", "is not host"},
		{"a]:80", "is not host"},
		{"", "\"\" is empty"},
		{":80", "has an empty host"},
		{"[]", "has an empty host"},
		{"[]:80", "has an empty host"},
		{" a", "has a space in the host"},
		{"a b", "has a space in the host"},
		{"a :80", "has a space in the host"},
		{"a\\tb", "\"a\\x09b\" has a control character in the host"},
		{"a\\u007f", "has a control character"},
		{"a..b", "has an empty label in the host name"},
		{".a", "has an empty label"},
		{"a/b", "has '/' in the host"},
		{"a@b", "has '@' in the host"},
		{"h\\u00e9", "has a non-ASCII byte in the host"},
		{"1.2.3.256", "is not an IPv4 address"},
		{"1.2.3", "is not an IPv4 address"},
		{"1.2.3.4.", "is not an IPv4 address"},
		{"[zz::1]", "has an invalid IPv6 address in brackets"},
		{"[1.2.3.4]", "has an invalid IPv6 address in brackets"},
		{"[fe80::1%]", "has an empty IPv6 zone"},
		{"[fe80::1%a b]", "has an invalid IPv6 zone"},
		{"[::1]:", "has a port that is not 1..65535"},
	};
	char buf[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(buf, sizeof(buf), "[{\"targets\":[\"ok\", \"%s\"]}]", cases[i].in);
		expect_error(buf, -EINVAL, cases[i].want);
		assert_non_null(strstr(err, "[0].targets[1] (line 1): "));
	}
	/* The example of the issue, in full, on line 4 of group 3. */
	expect_error("[{\"targets\":[]},{\"targets\":[]},{\"targets\":[]},\n\n\n"
		     "{\"targets\":[\"h\", \"a:b:c\"]}]",
		     -EINVAL,
		     "[3].targets[1] (line 4): \"a:b:c\" is not host, host:port, [ipv6] or "
		     "[ipv6]:port");
	/* A long bad string is cut in the message. */
	memset(buf, 0, sizeof(buf));
	strcpy(buf, "[{\"targets\":[\"");
	memset(buf + strlen(buf), 'a', 100);
	strcat(buf, ":b:c\"]}]");
	expect_error(buf, -EINVAL, "aaaa\"... is not host");
}

static void test_ipv6(void **state)
{
	struct probe_target_list l;

	assert_int_equal(parse("[{\"targets\":[\"[::1]\", \"[::1]:4791\", \"[FE80::1%eth0]:1\","
			       " \"[::ffff:10.0.0.1]\", \"[2001:db8::a:b:c]:65535\"]}]",
			       &l),
			 0);
	assert_int_equal(l.n_targets, 5);
	assert_string_equal(l.targets[0].host, "::1");
	assert_int_equal(l.targets[0].port, 0);
	assert_string_equal(l.targets[0].raw, "[::1]");
	assert_string_equal(l.targets[1].host, "::1");
	assert_int_equal(l.targets[1].port, 4791);
	assert_string_equal(l.targets[2].host, "FE80::1%eth0");
	assert_int_equal(l.targets[2].port, 1);
	assert_string_equal(l.targets[3].host, "::ffff:10.0.0.1");
	assert_string_equal(l.targets[4].host, "2001:db8::a:b:c");
	assert_int_equal(l.targets[4].port, 65535);
	probe_target_list_free(&l);
}

static void test_ports(void **state)
{
	static const char *const bad[] = {"a:0",  "a:65536", "a:99999", "a:123456",
					  "a:",	  "a:08",    "a:-1",	"a:+1",
					  "a:1x", "a:1 ",    "[::1]:0", "[::1]:65536"};
	struct probe_target_list l;
	char buf[96];

	assert_int_equal(parse("[{\"targets\":[\"a:1\", \"b:65535\", \"c:10\"]}]", &l), 0);
	assert_int_equal(l.targets[0].port, 1);
	assert_int_equal(l.targets[1].port, 65535);
	assert_int_equal(l.targets[2].port, 10);
	probe_target_list_free(&l);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "[{\"targets\":[\"%s\"]}]", bad[i]);
		expect_error(buf, -EINVAL, "has a port that is not 1..65535");
	}
}

static void test_duplicates(void **state)
{
	struct probe_target_list l;

	assert_int_equal(parse("[{\"targets\":[\"a\", \"A\", \"a:1\", \"a:1\", \"[::1]\"]},"
			       " {\"targets\":[\"[::1]:1\", \"a\", \"[::1]\", \"b\", \"B:1\"],"
			       " \"labels\":{\"x\":\"y\"}}]",
			       &l),
			 0);
	/* a, a:1, [::1] from group 0; [::1]:1, b, B:1 from group 1. */
	assert_int_equal(l.n_targets, 6);
	assert_int_equal(l.duplicates, 4);
	assert_string_equal(l.targets[0].raw, "a");
	assert_int_equal(l.targets[0].group, 0);
	assert_string_equal(l.targets[1].raw, "a:1");
	assert_string_equal(l.targets[2].raw, "[::1]");
	assert_int_equal(l.targets[2].group, 0);
	assert_string_equal(l.targets[3].raw, "[::1]:1");
	assert_int_equal(l.targets[3].group, 1);
	assert_string_equal(l.targets[5].raw, "B:1");
	probe_target_list_free(&l);
}

/* A file of n targets "10.a.b.c" in groups of 100, optionally one more. */
static char *many_targets(size_t n, size_t *len)
{
	size_t cap = n * 24 + 64, o = 0;
	char *s = malloc(cap);

	assert_non_null(s);
	o += (size_t)snprintf(s + o, cap - o, "[");
	for (size_t i = 0; i < n; i++) {
		if (i % 100 == 0)
			o += (size_t)snprintf(s + o, cap - o, "%s{\"targets\": [", i ? "]}, " : "");
		o += (size_t)snprintf(s + o, cap - o, "%s\"10.%zu.%zu.%zu\"", i % 100 ? ", " : "",
				      (i >> 16) & 255, (i >> 8) & 255, i & 255);
	}
	o += (size_t)snprintf(s + o, cap - o, "%s]\n", n ? "]}" : "");
	assert_true(o < cap);
	*len = o;
	return s;
}

static void test_limit_targets(void **state)
{
	struct probe_target_list l;
	size_t len;
	char *s;

	s = many_targets(PROBE_TARGETS_MAX_TARGETS, &len);
	assert_int_equal(parse_n(s, len, &l), 0);
	assert_int_equal(l.n_targets, PROBE_TARGETS_MAX_TARGETS);
	assert_int_equal(l.n_groups, PROBE_TARGETS_MAX_TARGETS / 100);
	assert_string_equal(l.targets[PROBE_TARGETS_MAX_TARGETS - 1].host, "10.1.134.159");
	probe_target_list_free(&l);
	free(s);

	s = many_targets(PROBE_TARGETS_MAX_TARGETS + 1, &len);
	assert_int_equal(parse_n(s, len, &l), -E2BIG);
	assert_non_null(strstr(err, "[1000].targets[0]"));
	assert_non_null(strstr(err, "more than 100000 targets in the file (the limit)"));
	free(s);
}

static void test_limit_groups(void **state)
{
	static const char group[] = "{\"targets\":[]},";
	size_t n = PROBE_TARGETS_MAX_GROUPS + 1, len = 1 + n * (sizeof(group) - 1) + 1;
	struct probe_target_list l;
	char *s = malloc(len);

	assert_non_null(s);
	s[0] = '[';
	for (size_t i = 0; i < n; i++)
		memcpy(s + 1 + i * (sizeof(group) - 1), group, sizeof(group) - 1);
	s[len - 2] = ']'; /* replaces the last ',' */
	s[len - 1] = '\n';
	assert_int_equal(parse_n(s, len, &l), -E2BIG);
	assert_non_null(strstr(err, "[100000] (line 1): more than 100000 groups (the limit)"));
	/* One group fewer is fine. */
	s[len - 2 - (sizeof(group) - 1)] = ']';
	assert_int_equal(parse_n(s, len - 1 - (sizeof(group) - 1), &l), 0);
	assert_int_equal(l.n_groups, PROBE_TARGETS_MAX_GROUPS);
	probe_target_list_free(&l);
	free(s);
}

static void test_limit_file_size(void **state)
{
	size_t len = PROBE_TARGETS_MAX_FILE + 1;
	struct probe_target_list l;
	char *s = malloc(len);

	assert_non_null(s);
	memset(s, ' ', len);
	s[0] = '[';
	s[len - 1] = ']';
	assert_int_equal(probe_targets_parse(s, len, &l, err, sizeof(err)), -EFBIG);
	assert_string_equal(err, "file of 16777217 bytes, more than 16777216 bytes (the limit)");
	/* At the limit, whitespace and all, it parses. */
	s[len - 2] = ']';
	assert_int_equal(probe_targets_parse(s, len - 1, &l, err, sizeof(err)), 0);
	probe_target_list_free(&l);
	free(s);
}

static void test_limit_strings(void **state)
{
	char buf[4096], name[1100];
	struct probe_target_list l;

	/* Host of 255 bytes in labels of at most 63: fine; 256: too long. */
	for (size_t i = 0; i < 255; i++)
		name[i] = i % 64 == 63 ? '.' : 'h';
	name[255] = 0;
	snprintf(buf, sizeof(buf), "[{\"targets\":[\"%s:1\", \"[::1]\"]}]", name);
	assert_int_equal(parse(buf, &l), 0);
	assert_int_equal(strlen(l.targets[0].host), 255);
	probe_target_list_free(&l);
	snprintf(buf, sizeof(buf), "[{\"targets\":[\"%sh:1\"]}]", name);
	expect_error(buf, -EINVAL, "has a host longer than 255 bytes (the limit)");
	/* A host name label of 64. */
	memset(name, 'h', 64);
	name[64] = 0;
	snprintf(buf, sizeof(buf), "[{\"targets\":[\"%s\"]}]", name);
	expect_error(buf, -EINVAL, "has a host name label longer than 63 bytes");
	/* A target string over 263 bytes. */
	memset(name, 'h', 264);
	name[264] = 0;
	snprintf(buf, sizeof(buf), "[{\"targets\":[\"%s\"]}]", name);
	expect_error(buf, -E2BIG, "[0].targets[0] (line 1): target longer than 263 bytes");

	/* Label value: 256 bytes fine, 257 too long; escapes count decoded. */
	strcpy(buf, "[{\"targets\":[], \"labels\":{\"v\":\"");
	for (size_t i = 0; i < 256; i++)
		strcat(buf, i % 2 ? "x" : "\\n");
	strcat(buf, "\"}}]");
	assert_int_equal(parse(buf, &l), 0);
	assert_int_equal(strlen(l.groups[0].labels[0].value), 256);
	probe_target_list_free(&l);
	strcpy(buf, "[{\"targets\":[], \"labels\":{\"v\":\"");
	memset(buf + strlen(buf), 'x', 257);
	strcpy(buf + strlen("[{\"targets\":[], \"labels\":{\"v\":\"") + 257, "\"}}]");
	expect_error(buf, -E2BIG, "[0].labels.v (line 1): label value longer than 256 bytes");

	/* Label name of 129. */
	memset(name, 'n', 129);
	name[129] = 0;
	snprintf(buf, sizeof(buf), "[{\"targets\":[], \"labels\":{\"%s\":\"v\"}}]", name);
	expect_error(buf, -E2BIG, "[0].labels (line 1): label name longer than 128 bytes");

	/* A key of 1025 bytes: YAML's limit on an implicit key, so libyaml's
	 * error; written as an explicit key ("? key"), ours. */
	memset(name, 'k', 1025);
	name[1025] = 0;
	snprintf(buf, sizeof(buf), "[{\"targets\":[], \"%s\": 1}]", name);
	expect_error(buf, -EINVAL, "did not find expected ',' or '}'");
	snprintf(buf, sizeof(buf), "[{\"targets\":[], ? \"%s\": 1}]", name);
	expect_error(buf, -E2BIG, "[0] (line 1): key longer than 1024 bytes");
}

/* A group's label names and values: 512 bytes in all are fine, 513 are not. */
static void test_limit_label_bytes(void **state)
{
	struct probe_target_list l;
	char buf[2048], v[200];
	size_t o;

	for (int last = 127; last <= 128; last++) {
		o = (size_t)snprintf(buf, sizeof(buf), "[{\"targets\":[\"a\"], \"labels\":{");
		for (int i = 0; i < 4; i++) {
			int n = i == 3 ? last : 127;

			memset(v, 'x', (size_t)n);
			v[n] = 0;
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s\"%c\":\"%s\"",
					      i ? "," : "", 'a' + i, v);
		}
		snprintf(buf + o, sizeof(buf) - o, "}}]");
		if (last == 127) {
			/* 4 names of 1 byte, values of 3 x 127 + 127: 512 */
			assert_int_equal(parse(buf, &l), 0);
			assert_int_equal(l.groups[0].n_labels, 4);
			probe_target_list_free(&l);
		} else {
			expect_error(buf, -E2BIG,
				     "[0].labels.d (line 1): labels longer than 512 bytes in all, "
				     "names and values (the limit on the label bytes a target "
				     "carries)");
		}
	}
}

static void test_limit_labels(void **state)
{
	struct probe_target_list l;
	char buf[2048];
	size_t o;

	for (int n = 32; n <= 33; n++) {
		o = (size_t)snprintf(buf, sizeof(buf), "[{\"targets\":[\"a\"], \"labels\":{");
		for (int i = 0; i < n; i++)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s\"l%d\":\"%d\"",
					      i ? "," : "", i, i);
		snprintf(buf + o, sizeof(buf) - o, "}}]");
		if (n == 32) {
			assert_int_equal(parse(buf, &l), 0);
			assert_int_equal(l.groups[0].n_labels, 32);
			assert_string_equal(label(&l, 0, "l31"), "31");
			probe_target_list_free(&l);
		} else {
			expect_error(buf, -E2BIG,
				     "[0].labels (line 1): more than 32 labels in one group");
		}
	}
}

static void test_unicode(void **state)
{
	struct probe_target_list l;

	assert_int_equal(parse("[{\"targets\":[\"\\u0031.2.3.4\"], \"labels\":{"
			       "\"a\":\"\\u00e9\\u20AC\\U0001F600\","
			       "\"b\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\","
			       "\"c\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\","
			       "\"d\":\"\\U0010FFFF\", \"e\": '\\n'}}]",
			       &l),
			 0);
	assert_string_equal(l.targets[0].host, "1.2.3.4");
	assert_string_equal(label(&l, 0, "a"), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	assert_string_equal(label(&l, 0, "b"), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	assert_string_equal(label(&l, 0, "c"), "\"\\/\b\f\n\r\t");
	assert_string_equal(label(&l, 0, "d"), "\xf4\x8f\xbf\xbf");
	assert_string_equal(label(&l, 0, "e"), "\\n"); /* single quotes: no escapes */
	probe_target_list_free(&l);

	static const struct {
		const char *value, *want;
	} bad[] = {
		/* libyaml takes no UTF-16 surrogate escapes, paired or not: a
		 * character past U+FFFF is written as itself or as \UXXXXXXXX. */
		{"\\ud83d\\ude00", "found invalid Unicode character escape code"},
		{"\\ude00", "found invalid Unicode character escape code"},
		{"\\u0000", "\\u0000 is not allowed in a string"},
		{"\\0", "\\u0000 is not allowed in a string"},
		{"\\u12", "did not find expected hexdecimal number"},
		{"\\u12G4", "did not find expected hexdecimal number"},
		{"\xff", "byte 31: invalid leading UTF-8 octet (0xff"},
		{"\xc0\x80", "invalid length of a UTF-8 sequence"},	/* overlong NUL */
		{"\xe0\x80\xaf", "invalid length of a UTF-8 sequence"}, /* overlong '/' */
		{"\xed\xa0\x80", "invalid Unicode character (0xd800"},	/* a surrogate in UTF-8 */
		{"\xf4\x90\x80\x80", "invalid Unicode character"},	/* past U+10FFFF */
		{"\xc3", "invalid trailing UTF-8 octet"},
		{"\x80", "invalid leading UTF-8 octet"},
	};
	char buf[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "[{\"targets\":[], \"labels\":{\"a\":\"%s\"}}]",
			 bad[i].value);
		expect_error(buf, -EINVAL, bad[i].want);
	}
	/* Truncated escapes at the very end of the input. */
	expect_error("[{\"targets\":[\"\\", -EINVAL, "end of file: found unknown escape character");
	expect_error("[{\"targets\":[\"\\u00", -EINVAL, "end of file: did not find expected hex");
	/* Bytes that are not UTF-8 text at the end: an error, not an overread. */
	expect_error("[\xc3", -EINVAL, "incomplete UTF-8 octet sequence");
}

static void test_deep_nesting(void **state)
{
	struct probe_target_list l;
	char buf[256];
	size_t o;

	/* Levels: top array 1, group 2, the skipped value 3 and deeper. */
	for (int extra = 14; extra <= 15; extra++) {
		o = (size_t)snprintf(buf, sizeof(buf), "[{\"targets\":[], \"x\":");
		memset(buf + o, '[', (size_t)extra);
		o += (size_t)extra;
		memset(buf + o, ']', (size_t)extra);
		o += (size_t)extra;
		snprintf(buf + o, sizeof(buf) - o, "}]");
		if (extra == 14) {
			assert_int_equal(parse(buf, &l), 0);
			probe_target_list_free(&l);
		} else {
			expect_error(buf, -E2BIG, "nested deeper than 16 levels (the limit)");
		}
	}
	/* A million '[' or '{': an error, not a stack overflow. */
	{
		size_t n = 1000000;
		char *s = malloc(n + 32);

		assert_non_null(s);
		o = (size_t)snprintf(s, 32, "[{\"targets\":[], \"x\":");
		memset(s + o, '[', n);
		assert_int_equal(parse_n(s, o + n, &l), -E2BIG);
		for (size_t i = 0; i < n; i += 4)
			memcpy(s + o + i, "{\"\":", 4);
		assert_int_equal(parse_n(s, o + n, &l), -E2BIG);
		free(s);
	}
}

static void test_many_targets(void **state)
{
	struct probe_target_list l;
	size_t len;
	char *s = many_targets(10000, &len);

	assert_int_equal(parse_n(s, len, &l), 0);
	assert_int_equal(l.n_targets, 10000);
	assert_int_equal(l.duplicates, 0);
	for (size_t i = 0; i < l.n_targets; i++)
		assert_int_equal(l.targets[i].group, i / 100);
	probe_target_list_free(&l);
	free(s);
}

static void test_err_buffer(void **state)
{
	struct probe_target_list l;
	char small[8];

	assert_int_equal(probe_targets_parse("[1]", 3, &l, NULL, 0), -EINVAL);
	assert_int_equal(probe_targets_parse("[1]", 3, &l, small, 0), -EINVAL);
	memset(small, 'x', sizeof(small));
	assert_int_equal(probe_targets_parse("[1]", 3, &l, small, sizeof(small)), -EINVAL);
	assert_string_equal(small, "[0] (li");
	memset(err, 'x', sizeof(err));
	assert_int_equal(probe_targets_parse("[]", 2, &l, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	probe_target_list_free(NULL);
}

/* A file of n targets "n<first+i>.mesh", in one group, in order (or reversed). */
static void make_list(size_t first, size_t n, bool reversed, struct probe_target_list *l)
{
	size_t cap = 64 + n * 32, len = 0;
	char *json = malloc(cap);

	assert_non_null(json);
	len += (size_t)snprintf(json + len, cap - len, "[{\"targets\":[");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(json + len, cap - len, "%s\"n%zu.mesh\"", i ? "," : "",
					first + (reversed ? n - 1 - i : i));
	len += (size_t)snprintf(json + len, cap - len, "]}]");
	assert_true(len < cap);
	assert_int_equal(parse_n(json, len, l), 0);
	free(json);
}

/* The sample of node as a set of host names (bitmap over the "n<i>" numbers). */
static size_t sample_set(const struct probe_target_list *l, size_t k, uint64_t node, bool *in,
			 size_t in_n)
{
	size_t *idx = calloc(k, sizeof(*idx)), m;
	uint64_t *w = calloc(k, sizeof(*w));

	assert_non_null(idx);
	assert_non_null(w);
	memset(in, 0, in_n * sizeof(*in));
	m = probe_targets_sample(l, k, node, idx, w);
	for (size_t i = 0; i < m; i++) {
		size_t num = (size_t)strtoul(l->targets[idx[i]].host + 1, NULL, 10);

		assert_true(num < in_n);
		assert_false(in[num]);
		in[num] = true;
		assert_true(i == 0 || idx[i - 1] < idx[i]);
	}
	free(idx);
	free(w);
	return m;
}

static size_t differ(const bool *a, const bool *b, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++)
		d += a[i] && !b[i];
	return d;
}

/* The same list gives the same sample, whatever its order and however often asked. */
static void test_sample_stable(void **state)
{
	struct probe_target_list l, r;
	bool a[300], b[300];
	size_t out[8];
	uint64_t w[8];

	(void)state;
	make_list(0, 300, false, &l);
	make_list(0, 300, true, &r);
	for (uint64_t node = 1; node < 50; node++) {
		assert_int_equal(sample_set(&l, 16, node * 0x1234567, a, 300), 16);
		assert_int_equal(sample_set(&l, 16, node * 0x1234567, b, 300), 16);
		assert_int_equal(differ(a, b, 300), 0);
		assert_int_equal(sample_set(&r, 16, node * 0x1234567, b, 300), 16);
		assert_int_equal(differ(a, b, 300), 0);
	}
	/* Different nodes, different samples. */
	sample_set(&l, 16, 1, a, 300);
	sample_set(&l, 16, 2, b, 300);
	assert_true(differ(a, b, 300) > 8);
	/* k >= n: all of them; nothing from nothing. */
	probe_target_list_free(&r);
	make_list(0, 5, false, &r);
	assert_int_equal(probe_targets_sample(&r, 8, 7, out, w), 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(out[i], i);
	assert_int_equal(probe_targets_sample(&r, 0, 7, out, w), 0);
	assert_int_equal(probe_targets_sample(NULL, 4, 7, out, w), 0);
	probe_target_list_free(&r);
	assert_int_equal(probe_targets_sample(&r, 4, 7, out, w), 0);
	/* Case in the host does not change a target's identity. */
	probe_target_list_free(&l);
	assert_int_equal(parse("[{\"targets\":[\"Node1.Mesh\", \"node2:9\"]}]", &r), 0);
	assert_int_equal(parse("[{\"targets\":[\"node1.mesh\", \"node2:9\"]}]", &l), 0);
	assert_true(r.targets[0].key == l.targets[0].key);
	assert_true(r.targets[1].key == l.targets[1].key);
	assert_true(l.targets[0].key != l.targets[1].key);
	probe_target_list_free(&l);
	probe_target_list_free(&r);
}

/* One target more or less moves at most one member of a node's sample. */
static void test_sample_minimal_change(void **state)
{
	struct probe_target_list l, plus, minus;
	bool a[302], b[302];
	size_t moved = 0;

	(void)state;
	make_list(0, 300, false, &l);
	make_list(0, 301, false, &plus);
	for (uint64_t node = 1; node <= 200; node++) {
		uint64_t key = node * 0x9e3779b97f4a7c15ull;
		size_t gone;

		sample_set(&l, 32, key, a, 302);
		sample_set(&plus, 32, key, b, 302);
		gone = differ(a, b, 302);
		assert_true(gone <= 1);
		/* What left is replaced by the new target, nothing else. */
		assert_int_equal(differ(b, a, 302), gone);
		if (gone)
			assert_true(b[300]);
		moved += gone;
	}
	/* About 200 x 32 / 301 nodes take the new target. */
	assert_true(moved > 5 && moved < 60);
	/* Removing target 0: nodes without it keep their sample; the others lose it
	 * and gain one. */
	for (uint64_t node = 1; node <= 200; node++) {
		uint64_t key = node * 0x9e3779b97f4a7c15ull;

		make_list(1, 299, false, &minus);
		sample_set(&l, 32, key, a, 302);
		sample_set(&minus, 32, key, b, 302);
		assert_int_equal(differ(a, b, 302), a[0] ? 1 : 0);
		assert_int_equal(differ(b, a, 302), a[0] ? 1 : 0);
		probe_target_list_free(&minus);
	}
	probe_target_list_free(&l);
	probe_target_list_free(&plus);
}

/*
 * Coverage of a 2,000-node mesh whose nodes all read the same 2,000-target
 * file, k = 64 (the default): probers per target. Printed for
 * docs/pingmesh.md; the node identities are host names hashed as probe.c
 * does.
 */
static void test_sample_coverage(void **state)
{
	enum { NODES = 2000, K = 64 };
	struct probe_target_list l;
	unsigned *probers = calloc(NODES, sizeof(*probers)), lo = UINT32_MAX, hi = 0;
	size_t idx[K], sum = 0;
	uint64_t w[K];

	(void)state;
	assert_non_null(probers);
	make_list(0, NODES, false, &l);
	for (size_t node = 0; node < NODES; node++) {
		char host[32];
		uint64_t key = 1469598103934665603ull;

		snprintf(host, sizeof(host), "n%zu.mesh", node);
		for (const char *c = host; *c; c++)
			key = (key ^ (unsigned char)*c) * 1099511628211ull;
		assert_int_equal(probe_targets_sample(&l, K, key, idx, w), K);
		for (size_t i = 0; i < K; i++)
			probers[idx[i]]++;
	}
	for (size_t t = 0; t < NODES; t++) {
		sum += probers[t];
		lo = probers[t] < lo ? probers[t] : lo;
		hi = probers[t] > hi ? probers[t] : hi;
	}
	printf("coverage: %d nodes, %d targets, k=%d: probers per target min %u mean %.1f max "
	       "%u\n",
	       NODES, NODES, K, lo, (double)sum / NODES, hi);
	assert_int_equal(sum, (size_t)NODES * K);
	/* Binomial(2000, 64/2000): mean 64, sd 7.9; every target well covered. */
	assert_true(lo >= 32);
	assert_true(hi <= 100);
	free(probers);
	probe_target_list_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_realistic),
		cmocka_unit_test(test_yaml_file_sd),
		cmocka_unit_test(test_yaml_errors),
		cmocka_unit_test(test_syntax_error_first),
		cmocka_unit_test(test_yaml_nesting),
		cmocka_unit_test(test_empty_list),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_every_prefix_fails),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_unknown_keys),
		cmocka_unit_test(test_duplicate_keys),
		cmocka_unit_test(test_label_names),
		cmocka_unit_test(test_dropped_labels),
		cmocka_unit_test(test_bad_targets),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_limit_targets),
		cmocka_unit_test(test_limit_groups),
		cmocka_unit_test(test_limit_file_size),
		cmocka_unit_test(test_limit_strings),
		cmocka_unit_test(test_limit_labels),
		cmocka_unit_test(test_limit_label_bytes),
		cmocka_unit_test(test_unicode),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_many_targets),
		cmocka_unit_test(test_err_buffer),
		cmocka_unit_test(test_sample_stable),
		cmocka_unit_test(test_sample_minimal_change),
		cmocka_unit_test(test_sample_coverage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
