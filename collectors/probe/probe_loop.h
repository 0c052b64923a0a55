/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A port's loopback responder (issue 30): a second UD QP on the port
 * (probe_port_open_sibling) answered by its own thread, so that a loopback
 * probe is answered while the engine's post is still in its system call,
 * as ib_send_lat's second process does, instead of after the engine comes
 * back from it and polls. On Soft-RoCE the whole delivery runs inside the
 * sender's ibv_post_send: one thread that sends and then answers measured
 * its own serialised system calls (30 us a one-way trip in the VM against
 * perftest's 16 us); a second thread that polls sees the request midway.
 *
 * The thread sleeps on its completion channel and busy-polls only after it
 * answered a wake-up request, until it answered the probe that follows or
 * for as long as the wake-up asks (probe_loop_window, probe_pace.h): the
 * engine sends that probe as soon as the wake-up's reply is in, so the
 * probe meets a polling thread on the other CPU. It answers exactly as the engine's responder does
 * (probe_packet_make_reply, CLOCK_MONOTONIC readings at its poll and just
 * before its post), and only the port's own probe QP. The owner
 * (probe_slots.c, with the port) makes it only when the process may run on
 * two CPUs or more: two threads spinning on one CPU take turns a scheduler
 * tick apart (8 ms a round trip in the VM). The owner frees it before
 * closing the port; freeing wakes and joins the thread (at once when it
 * sleeps, within a polling pass when it spins), then destroys the QP.
 *
 * Off by default (--collector.probe.loopback-thread): in the Soft-RoCE VM,
 * where a thread wake-up takes milliseconds and two emulated CPUs rarely run
 * at once, it measured slower than the engine answering itself
 * (docs/pingmesh.md).
 *
 * Ownership: the engine owns the object and the port it borrows from; the
 * thread touches only its QP, CQ, channel and buffer, the parent's loopback
 * AH, and the object's atomic counters and flags.
 */
#ifndef RDMA_EXPORTER_PROBE_LOOP_H
#define RDMA_EXPORTER_PROBE_LOOP_H

#include <stdint.h>

#include "probe_port.h"

struct probe_loop;

/* What the thread did since the last probe_loop_qpn. */
struct probe_loop_counts {
	uint64_t answered;   /* requests answered */
	uint64_t send_fail;  /* replies that could not be posted */
	uint64_t unexpected; /* not a request of the port's own QP, or malformed */
};

/* The CPUs this process may run on (sched_getaffinity); 1 when unknown. */
int probe_loop_cpus(void);

/*
 * A responder for parent's loopback probes, its thread started; NULL with
 * *what set (a step of probe_port_open_sibling, or "thread") and *err
 * (-errno) on failure. parent stays open until probe_loop_free.
 */
struct probe_loop *probe_loop_new(const struct probe_port *parent, const char **what, int *err);

/* Stops and joins the thread, destroys the QP and CQ; NULL: no-op. */
void probe_loop_free(struct probe_loop *l);

/*
 * The QP loopback requests go to (the engine sends each wake-up and probe
 * there); *c gets what the thread did since the last call. 0 when the
 * responder failed (its QP or CQ in error): the owner then answers loopback
 * itself.
 */
uint32_t probe_loop_qpn(struct probe_loop *l, struct probe_loop_counts *c);

#endif
