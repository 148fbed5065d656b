/* SPDX-License-Identifier: GPL-2.0-or-later
 * Built as a file named gres_gpu.so, which test_spank_plugin maps as
 * slurmstepd maps Slurm's gres/gpu plugin: in /proc/self/maps, where the
 * SPANK plugin looks for it before it trusts a step's GPU list
 * (node/gres_plugin.h).
 */
int qd_gres_gpu_stub;
