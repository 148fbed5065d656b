/* SPDX-License-Identifier: GPL-2.0-or-later
 * Under gres.conf's AutoDetect without File=, Slurm numbers a node's GPUs
 * in PCI bus order (NVML's), and qosdeny's fallback (/dev/nvidia[0-9]*) in
 * minor-number order: the same order on most nodes, not on all. Where the
 * driver's view (/proc/driver/nvidia/gpus/BUS/information, "Device Minor")
 * shows them differing, index i would name another GPU than Slurm's i, so
 * binding is refused (docs/gpu-and-usage.md, "How it is done").
 */
#ifndef QD_GPU_ORDER_H
#define QD_GPU_ORDER_H

#include <stddef.h>

#define QD_NVIDIA_GPUS_PROC "/proc/driver/nvidia/gpus"

/*
 * Checks that the GPUs under dir (one directory per PCI bus id, as the
 * driver lists them), taken in bus id order, have increasing minor numbers.
 * A missing dir (no NVIDIA driver) and entries without a readable minor
 * are no objection. Returns 0, or -1 with err naming the two GPUs out of
 * order.
 */
int qd_gpu_minor_order(const char *dir, char *err, size_t errlen);

#endif
