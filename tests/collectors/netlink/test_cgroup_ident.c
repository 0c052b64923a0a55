// SPDX-License-Identifier: Apache-2.0
/*
 * cgroup_ident.c on /proc/<pid>/cgroup contents as the kernel writes them
 * for every layout the exporter attributes (Kubernetes: systemd and cgroupfs
 * drivers, containerd, CRI-O and Docker, the three QoS classes, cgroup v1
 * and v2; Slurm v1 and v2; system services; user sessions), plus nested,
 * odd, truncated and hostile contents, and /proc/<pid>/stat start times.
 */
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

#include "cgroup_ident.h"

#define UID   "2f4a6b1e-8c3d-4e5f-9a0b-1c2d3e4f5a6b"
#define UID_U "2f4a6b1e_8c3d_4e5f_9a0b_1c2d3e4f5a6b"
#define CID   "4f8c2e1a9b3d5f7e0c6a8b2d4f1e3c5a7b9d0e2f4a6c8e1b3d5f7a9c0e2b4d6f"

struct ident_case {
	const char *name;
	const char *in;
	const char *pod, *container, *job, *unit;
};

static const struct ident_case cases[] = {
	/* Kubernetes, cgroup v2, systemd driver */
	{"v2 systemd containerd burstable",
	 "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_U
	 ".slice/cri-containerd-" CID ".scope\n",
	 UID, CID, "", ""},
	{"v2 systemd containerd besteffort",
	 "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_U
	 ".slice/cri-containerd-" CID ".scope\n",
	 UID, CID, "", ""},
	{"v2 systemd containerd guaranteed",
	 "0::/kubepods.slice/kubepods-pod" UID_U ".slice/cri-containerd-" CID ".scope\n", UID, CID,
	 "", ""},
	{"v2 systemd crio",
	 "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_U
	 ".slice/crio-" CID ".scope\n",
	 UID, CID, "", ""},
	{"v2 systemd crio conmon: pod only",
	 "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_U
	 ".slice/crio-conmon-" CID ".scope\n",
	 UID, "", "", ""},
	{"v2 systemd docker",
	 "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_U
	 ".slice/docker-" CID ".scope\n",
	 UID, CID, "", ""},
	{"v2 systemd cri-dockerd",
	 "0::/kubepods.slice/kubepods-pod" UID_U ".slice/cri-dockerd-" CID ".scope\n", UID, CID, "",
	 ""},
	{"v2 pod cgroup itself",
	 "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_U ".slice\n", UID,
	 "", "", ""},
	{"v2 process in a sub-cgroup of its container",
	 "0::/kubepods.slice/kubepods-pod" UID_U ".slice/cri-containerd-" CID ".scope/init\n", UID,
	 CID, "", ""},
	{"v2 removed cgroup",
	 "0::/kubepods.slice/kubepods-pod" UID_U ".slice/cri-containerd-" CID ".scope (deleted)\n",
	 UID, CID, "", ""},
	/* kind and --cgroup-root: kubepods below another slice */
	{"v2 nested kubelet slice",
	 "0::/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/"
	 "kubelet-kubepods-besteffort-pod" UID_U ".slice/cri-containerd-" CID ".scope\n",
	 UID, CID, "", ""},
	/* read from inside another cgroup namespace (the exporter in a pod) */
	{"cgroupns: systemd driver",
	 "0::/../../kubepods-besteffort.slice/kubepods-besteffort-pod" UID_U
	 ".slice/cri-containerd-" CID ".scope\n",
	 UID, CID, "", ""},
	{"cgroupns: cgroupfs driver", "0::/../../../besteffort/pod" UID "/" CID "\n", UID, CID, "",
	 ""},
	{"cgroupns: own cgroup", "0::/\n", "", "", "", ""},
	{"cgroupns: a service", "0::/../../../system.slice/nvmf.service\n", "", "", "",
	 "nvmf.service"},
	{"v2 systemd driver in docker (kind, from the host)",
	 "0::/system.slice/docker-" CID ".scope/kubelet.slice/kubelet-kubepods.slice/"
	 "kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-pod" UID_U
	 ".slice/cri-containerd-" CID ".scope\n",
	 UID, CID, "", ""},
	/* Kubernetes, cgroupfs driver */
	{"v2 cgroupfs burstable", "0::/kubepods/burstable/pod" UID "/" CID "\n", UID, CID, "", ""},
	{"v2 cgroupfs besteffort", "0::/kubepods/besteffort/pod" UID "/" CID "\n", UID, CID, "",
	 ""},
	{"v2 cgroupfs guaranteed", "0::/kubepods/pod" UID "/" CID "\n", UID, CID, "", ""},
	{"v2 cgroupfs crio", "0::/kubepods/burstable/pod" UID "/crio-" CID "\n", UID, CID, "", ""},
	{"v2 cgroupfs in docker (kind)",
	 "0::/docker/" CID "/kubepods/besteffort/pod" UID "/" CID "\n", UID, CID, "", ""},
	{"static pod: config hash UID",
	 "0::/kubepods/burstable/pod6e3c1f0a9b8d7c6e5f4a3b2c1d0e9f8a/" CID "\n",
	 "6e3c1f0a9b8d7c6e5f4a3b2c1d0e9f8a", CID, "", ""},
	/* Kubernetes, cgroup v1: several hierarchies */
	{"v1 cgroupfs docker",
	 "12:pids:/kubepods/burstable/pod" UID "/" CID "\n"
	 "11:cpuset:/kubepods/burstable/pod" UID "/" CID "\n"
	 "10:memory:/kubepods/burstable/pod" UID "/" CID "\n"
	 "4:cpu,cpuacct:/kubepods/burstable/pod" UID "/" CID "\n"
	 "1:name=systemd:/kubepods/burstable/pod" UID "/" CID "\n",
	 UID, CID, "", ""},
	{"v1 systemd driver containerd",
	 "11:memory:/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_U
	 ".slice/cri-containerd-" CID ".scope\n"
	 "1:name=systemd:/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_U
	 ".slice/cri-containerd-" CID ".scope\n",
	 UID, CID, "", ""},
	{"hybrid: unified line names the runtime's service, memory the pod",
	 "10:memory:/kubepods/pod" UID "/" CID "\n"
	 "1:name=systemd:/system.slice/containerd.service\n"
	 "0::/system.slice/containerd.service\n",
	 UID, CID, "", ""},
	{"v1 name=systemd preferred over memory",
	 "10:memory:/kubepods/pod" UID "/" CID "\n"
	 "1:name=systemd:/kubepods/pod11111111-2222-3333-4444-555555555555/" CID "\n",
	 "11111111-2222-3333-4444-555555555555", CID, "", ""},
	/* Slurm */
	{"slurm v1",
	 "12:memory:/slurm/uid_1000/job_42/step_0/task_0\n"
	 "7:freezer:/slurm/uid_1000/job_42/step_0\n"
	 "1:name=systemd:/system.slice/slurmd.service\n",
	 "", "", "42", ""},
	{"slurm v1 batch step", "4:cpuset:/slurm/uid_1000/job_1234567/step_batch\n", "", "",
	 "1234567", ""},
	{"slurm v1 multiple-slurmd", "10:memory:/slurm_node07/uid_0/job_9/step_extern\n", "", "",
	 "9", ""},
	{"slurm v2", "0::/system.slice/slurmstepd.scope/job_42/step_0/user/task_0\n", "", "", "42",
	 ""},
	{"slurm v2 interactive",
	 "0::/system.slice/slurmstepd.scope/job_7/step_interactive/user/task_0\n", "", "", "7", ""},
	{"slurm v2 multiple-slurmd",
	 "0::/system.slice/node07_slurmstepd.scope/job_77/step_0/user/task_1\n", "", "", "77", ""},
	{"slurm v2 stepd itself: no job", "0::/system.slice/slurmstepd.scope/system\n", "", "", "",
	 ""},
	{"slurmd daemon", "0::/system.slice/slurmd.service\n", "", "", "", "slurmd.service"},
	{"slurm job id not a number", "0::/system.slice/slurmstepd.scope/job_4x2/step_0\n", "", "",
	 "", ""},
	/* systemd services and user sessions */
	{"system service", "0::/system.slice/nvmf-target.service\n", "", "", "",
	 "nvmf-target.service"},
	{"templated service in a sub-slice",
	 "0::/system.slice/system-spdk.slice/spdk@nvme0.service\n", "", "", "",
	 "spdk@nvme0.service"},
	{"escaped unit name", "0::/system.slice/srp_daemon\\x2dmlx5_0.service\n", "", "", "",
	 "srp_daemon\\x2dmlx5_0.service"},
	{"service in a custom slice", "0::/storage.slice/ceph-osd@3.service\n", "", "", "",
	 "ceph-osd@3.service"},
	{"v1 service on name=systemd",
	 "11:memory:/system.slice/rdma-ndd.service\n"
	 "1:name=systemd:/system.slice/rdma-ndd.service\n",
	 "", "", "", "rdma-ndd.service"},
	{"user session scope", "0::/user.slice/user-1000.slice/session-3.scope\n", "", "", "", ""},
	{"user service", "0::/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service\n",
	 "", "", "", ""},
	{"init scope", "0::/init.scope\n", "", "", "", ""},
	{"root cgroup (cgroup namespace)", "0::/\n", "", "", "", ""},
	{"docker outside Kubernetes", "0::/system.slice/docker-" CID ".scope\n", "", "", "", ""},
	{"bare .service", "0::/system.slice/.service\n", "", "", "", ""},
	/* spoofs: cgroups a local user can make (below its user@<uid>.service,
	 * which systemd delegates to it) or paths that are no kubelet or Slurm
	 * layout; none may name a pod or a job (issue 29) */
	{"spoof: kubepods below user.slice",
	 "0::/user.slice/user-1000.slice/user@1000.service/app.slice/kubepods.slice/"
	 "kubepods-pod" UID_U ".slice/cri-containerd-" CID ".scope\n",
	 "", "", "", ""},
	{"spoof: cgroupfs kubepods below user.slice",
	 "0::/user.slice/user-1000.slice/user@1000.service/kubepods/burstable/pod" UID "/" CID "\n",
	 "", "", "", ""},
	{"spoof: a segment containing kubepods", "0::/mykubepods/burstable/pod" UID "/" CID "\n",
	 "", "", "", ""},
	{"spoof: kubepods inside a scope name",
	 "0::/system.slice/evil-kubepods-x.scope/pod" UID "/" CID "\n", "", "", "", ""},
	{"spoof: pod slice outside the kubepods chain",
	 "0::/system.slice/kubepods-pod" UID_U ".slice/cri-containerd-" CID ".scope\n", "", "", "",
	 ""},
	{"spoof: pod slice not below its parent slice",
	 "0::/kubepods.slice/kubepods-burstable.slice/kubepods-besteffort-pod" UID_U
	 ".slice/cri-containerd-" CID ".scope\n",
	 "", "", "", ""},
	{"spoof: slurm_fake/job_4242 at the root", "0::/slurm_fake/job_4242/step_0\n", "", "", "",
	 ""},
	{"spoof: slurm_fake/job_4242 below user.slice",
	 "0::/user.slice/user-1000.slice/user@1000.service/slurm_fake/job_4242/step_0\n", "", "",
	 "", ""},
	{"spoof: slurmstepd.scope below user.slice",
	 "0::/user.slice/user-1000.slice/user@1000.service/app.slice/slurmstepd.scope/job_4242/"
	 "step_0\n",
	 "", "", "", ""},
	{"spoof: slurm below arbitrary cgroups", "0::/x/slurm/uid_0/job_4242/step_0\n", "", "", "",
	 ""},
	{"spoof: slurmd's own service", "0::/system.slice/slurmd.service/job_4242\n", "", "", "",
	 "slurmd.service"},
	{"spoof: cgroupns, user.slice hidden behind ..",
	 "0::/../../user.slice/user-1000.slice/user@1000.service/kubepods/burstable/pod" UID "/" CID
	 "\n",
	 "", "", "", ""},
	{"spoof: cgroupns, pod<uid> anywhere after ..", "0::/../home/kubepods/pod" UID "/" CID "\n",
	 "", "", "", ""},
	{"spoof: cgroupns, user unit behind ..",
	 "0::/../../user.slice/user-1000.slice/user@1000.service/app.slice/foo.service\n", "", "",
	 "", ""},
	{"spoof: pod UID below user-1000.slice",
	 "0::/user.slice/user-1000.slice/session-3.scope/kubepods-besteffort-pod" UID_U ".slice\n",
	 "", "", "", ""},
	{"spoof: cgroupns, pod UID below user-1000.slice",
	 "0::/../user-1000.slice/user@1000.service/kubepods/pod" UID "/" CID "\n", "", "", "", ""},
	{"spoof: cgroupns, job below user-1000.slice",
	 "0::/../user-1000.slice/user@1000.service/slurm/uid_0/job_4242/step_0\n", "", "", "", ""},
	/* odd, truncated, hostile */
	{"empty", "", "", "", "", ""},
	{"no newline: cut, ignored", "0::/system.slice/nvmf-target.service", "", "", "", ""},
	{"cut last line, earlier line counts",
	 "1:name=systemd:/system.slice/a.service\n0::/kubepods/pod" UID "/" CID, "", "", "",
	 "a.service"},
	{"cut container ID", "0::/kubepods/pod" UID "/4f8c2e1a9b3d\n", UID, "", "", ""},
	{"container ID too long", "0::/kubepods/pod" UID "/" CID "0\n", UID, "", "", ""},
	{"upper-case container ID",
	 "0::/kubepods/pod" UID
	 "/4F8C2E1A9B3D5F7E0C6A8B2D4F1E3C5A7B9D0E2F4A6C8E1B3D5F7A9C0E2B4D6F\n",
	 UID, "", "", ""},
	{"pod UID too long", "0::/kubepods/pod" UID "0/" CID "\n", "", "", "", ""},
	{"pod UID with a quote", "0::/kubepods/pod2f4a\"6b1e/" CID "\n", "", "", "", ""},
	{"pod without kubepods", "0::/pod" UID "/" CID "\n", "", "", "", ""},
	{"relative path", "0::kubepods/pod" UID "/" CID "\n", "", "", "", ""},
	{"no colons", "garbage\n", "", "", "", ""},
	{"one colon", "0:/kubepods/pod" UID "\n", "", "", "", ""},
	{"colon in the path", "0::/system.slice/a:b.service\n", "", "", "", "a:b.service"},
	{"newline in a unit name", "0::/system.slice/a\nb.service\n", "", "", "", ""},
	{"hostile unit bytes", "0::/system.slice/\x1b[31mevil\".service\n", "", "", "", ""},
	{"slashes only", "0::////\n", "", "", "", ""},
	{"empty job", "0::/slurm/uid_0/job_/step_0\n", "", "", "", ""},
	{"job id too long", "0::/slurm/uid_0/job_123456789012345678901/step_0\n", "", "", "", ""},
	{"CRLF", "0::/system.slice/a.service\r\n", "", "", "", ""},
};

static void test_ident_table(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ident_case *c = &cases[i];
		struct cg_ident id;
		int r = cg_ident_parse(c->in, strlen(c->in), &id);

		print_message("case: %s\n", c->name);
		assert_string_equal(id.pod_uid, c->pod);
		assert_string_equal(id.container_id, c->container);
		assert_string_equal(id.slurm_job_id, c->job);
		assert_string_equal(id.systemd_unit, c->unit);
		assert_int_equal(r, cg_ident_empty(&id) ? 0 : 1);
	}
}

/* A NUL inside the content is a byte like any other, not its end. */
static void test_ident_nul_bytes(void **unused)
{
	static const char in[] = "0::/system.slice/a\0b.service\n0::/kubepods/pod" UID "/" CID "\n";
	static const char unit[] = "0::/system.slice/ok.service\n\0\0\0";
	struct cg_ident id;

	(void)unused;
	assert_int_equal(cg_ident_parse(in, sizeof(in) - 1, &id), 1);
	assert_string_equal(id.pod_uid, UID);
	assert_string_equal(id.container_id, CID);
	assert_string_equal(id.systemd_unit, "");
	assert_int_equal(cg_ident_parse(unit, sizeof(unit) - 1, &id), 1);
	assert_string_equal(id.systemd_unit, "ok.service");
	assert_int_equal(cg_ident_parse(NULL, 0, &id), 0);
	assert_true(cg_ident_empty(&id));
}

/* Very long paths: labels stay bounded; a unit name over the bound is dropped. */
static void test_ident_long_paths(void **unused)
{
	size_t big = 1 << 20;
	char *in = malloc(big + 64);
	struct cg_ident id;
	size_t n;

	(void)unused;
	assert_non_null(in);
	n = (size_t)sprintf(in, "0::/system.slice/");
	memset(in + n, 'a', 200);
	n += 200;
	n += (size_t)sprintf(in + n, ".service\n");
	assert_int_equal(cg_ident_parse(in, n, &id), 0);
	assert_string_equal(id.systemd_unit, "");

	n = (size_t)sprintf(in, "0::/system.slice/");
	memset(in + n, 'b', CG_UNIT_MAX - 1 - strlen(".service"));
	n += CG_UNIT_MAX - 1 - strlen(".service");
	n += (size_t)sprintf(in + n, ".service\n");
	assert_int_equal(cg_ident_parse(in, n, &id), 1);
	assert_int_equal(strlen(id.systemd_unit), CG_UNIT_MAX - 1);

	/* A megabyte of nested directories below a Slurm job. */
	n = (size_t)sprintf(in, "0::/slurm/uid_1/job_5/step_0");
	while (n < big - 64)
		n += (size_t)sprintf(in + n, "/x");
	n += (size_t)sprintf(in + n, "\n");
	assert_int_equal(cg_ident_parse(in, n, &id), 1);
	assert_string_equal(id.slurm_job_id, "5");

	/* And above one: not anchored at the root, no job (issue 29). */
	n = (size_t)sprintf(in, "0::");
	while (n < big - 64)
		n += (size_t)sprintf(in + n, "/x");
	n += (size_t)sprintf(in + n, "/slurm/uid_1/job_5/step_0\n");
	assert_int_equal(cg_ident_parse(in, n, &id), 0);
	assert_string_equal(id.slurm_job_id, "");
	free(in);
}

static void test_ident_equal(void **unused)
{
	struct cg_ident a = {0}, b = {0};

	(void)unused;
	assert_true(cg_ident_equal(&a, &b));
	assert_true(cg_ident_empty(&a));
	snprintf(b.slurm_job_id, sizeof(b.slurm_job_id), "1");
	assert_false(cg_ident_equal(&a, &b));
	assert_false(cg_ident_empty(&b));
}

static void test_stat_starttime(void **unused)
{
	static const struct {
		const char *in;
		int r;
		uint64_t start;
	} c[] = {
		{"48213 (ib_send_bw) S 1 48213 48213 34816 48213 4194304 1532 0 0 0 3 5 0 0 20 0 1 "
		 "0 8812345 25001984 1201 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 3 0 0 "
		 "0 "
		 "0 0\n",
		 0, 8812345},
		{"7 (a) b) c) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 42 19\n", 0, 42},
		{"7 (sp ace) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 18446744073709551615",
		 0, UINT64_MAX},
		{"7 (x) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 18446744073709551616 1\n",
		 -EINVAL, 0},
		{"7 (x) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n", -EINVAL, 0},
		{"7 (x) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 ", -EINVAL, 0},
		{"7 (x) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 -5 1\n", -EINVAL, 0},
		{"7 (x) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 5x 1\n", -EINVAL, 0},
		{"7 (x)  R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 5 1\n", -EINVAL, 0},
		{"no parenthesis at all", -EINVAL, 0},
		{"", -EINVAL, 0},
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t v = 0;

		print_message("stat case %zu\n", i);
		assert_int_equal(cg_stat_starttime(c[i].in, strlen(c[i].in), &v), c[i].r);
		if (!c[i].r)
			assert_true(v == c[i].start);
	}
}

static void test_stat_comm(void **unused)
{
	char comm[16];

	(void)unused;
	assert_int_equal(cg_stat_comm("7 (a) b) c) R 1", 15, comm, sizeof(comm)), 0);
	assert_string_equal(comm, "a) b) c");
	assert_int_equal(cg_stat_comm("7 () R 1", 8, comm, sizeof(comm)), 0);
	assert_string_equal(comm, "");
	assert_int_equal(cg_stat_comm("7 (a very long name indeed) R", 29, comm, 8), 0);
	assert_string_equal(comm, "a very ");
	assert_int_equal(cg_stat_comm("7 )x( R", 7, comm, sizeof(comm)), -EINVAL);
	assert_int_equal(cg_stat_comm("7 (x R", 6, comm, sizeof(comm)), -EINVAL);
	assert_int_equal(cg_stat_comm("", 0, comm, sizeof(comm)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ident_table),	 cmocka_unit_test(test_ident_nul_bytes),
		cmocka_unit_test(test_ident_long_paths), cmocka_unit_test(test_ident_equal),
		cmocka_unit_test(test_stat_starttime),	 cmocka_unit_test(test_stat_comm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
