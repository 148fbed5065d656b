/* SPDX-License-Identifier: GPL-2.0-or-later
 * Names of users, accounts, QoS, partitions, nodes and clusters as qosdeny
 * stores them: in qosdeny.conf, usage records, spool file names and Redis
 * keys, where ':' and '/' separate them and "{C}" is a Redis hash tag.
 */
#ifndef QD_NAMES_H
#define QD_NAMES_H

#include <stdbool.h>

#define QD_NAME_MAX 64 /* QoS, account, user and cluster names */

/*
 * Whether s is a name that can stand in a key or a file name: 1 to 63
 * characters of [A-Za-z0-9._@+$-], none of the separators.
 */
bool qd_usage_name_ok(const char *s);

#endif
