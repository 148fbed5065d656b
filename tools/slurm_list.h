/*
 * libslurm's list types: 24.05 renamed List and ListIterator to list_t *
 * and list_itr_t *, the same structures.
 */
#ifndef QD_SLURM_LIST_H
#define QD_SLURM_LIST_H

#include <slurm/slurm.h>

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
typedef list_t *qd_list_t;
typedef list_itr_t *qd_list_itr_t;
#else
typedef List qd_list_t;
typedef ListIterator qd_list_itr_t;
#endif

#endif
