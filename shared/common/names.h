/* SPDX-License-Identifier: GPL-2.0-or-later
 * Names of users, accounts, QoS, partitions, nodes and clusters as qosdeny
 * stores them: in qosdeny.conf, usage records, spool file names and Redis
 * keys, where ':' and '/' separate them and "{C}" is a Redis hash tag.
 * docs/gpu-and-usage.md, "Names in the usage store".
 */
#ifndef QD_NAMES_H
#define QD_NAMES_H

#include <stdbool.h>

#define QD_NAME_MAX 64 /* QoS, account, user and cluster names */

/*
 * Whether s is a stored name: 1 to 63 characters of [A-Za-z0-9._@+$-] and
 * escapes "%XX" (two uppercase hex digits) of bytes outside that set,
 * exactly as qd_name_store writes them, so that every name Slurm gives has
 * one stored form and no stored name holds a separator.
 */
bool qd_usage_name_ok(const char *s);

/*
 * The stored form of a name as Slurm gives it: the name itself where every
 * byte is in the set above, else each byte outside it as "%XX". Reversible,
 * so one stored name is one Slurm name: an account typed as "a:b" is kept
 * as "a%3Ab", never dropped nor merged with another. Returns 0, or -1 when
 * the name is empty or its stored form is longer than 63 characters.
 */
int qd_name_store(const char *name, char out[QD_NAME_MAX]);

#endif
