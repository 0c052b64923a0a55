/* SPDX-License-Identifier: Apache-2.0 */
#ifndef RDMA_EXPORTER_DAEMON_H
#define RDMA_EXPORTER_DAEMON_H

/* The whole program; returns the exit status (0, 1 runtime error, 2 bad flags). */
int daemon_main(int argc, char *argv[]);

#endif
