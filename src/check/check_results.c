// SPDX-License-Identifier: Apache-2.0
/* The list of results the checks append to. */
#include "check/check_results.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void check_results_free(struct check_results *r)
{
	if (!r)
		return;
	free(r->v);
	*r = (struct check_results){0};
}

static int add_result_v(struct check_results *r, enum check_status st, const char *check,
			const char *object, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));

static int add_result_v(struct check_results *r, enum check_status st, const char *check,
			const char *object, const char *fmt, va_list ap)
{
	struct check_result *x;

	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 32;
		struct check_result *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	x = &r->v[r->n++];
	x->status = st;
	x->check = check;
	snprintf(x->object, sizeof(x->object), "%s", object);
	vsnprintf(x->reason, sizeof(x->reason), fmt, ap);
	return 0;
}

int check_result_add(struct check_results *r, enum check_status st, const char *check,
		     const char *object, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = add_result_v(r, st, check, object, fmt, ap);
	va_end(ap);
	return ret;
}
