/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "gpu_order.h"

#define MAX_GPUS 256

struct gpu {
	char bus[64];
	long minor;
};

/* "Device Minor: \t N" in a GPU's information file; -1 when none. */
static long read_minor(const char *dir, const char *bus)
{
	char path[4096], line[256];
	long minor = -1;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/information", dir,
			     bus) >= sizeof(path))
		return -1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (minor < 0 && fgets(line, sizeof(line), f)) {
		char *end;

		if (strncmp(line, "Device Minor:", 13))
			continue;
		errno = 0;
		minor = strtol(line + 13, &end, 10);
		if (errno || end == line + 13 || minor < 0 ||
		    (*end && *end != '\n'))
			minor = -1;
	}
	fclose(f);
	return minor;
}

static int by_bus(const void *a, const void *b)
{
	return strcmp(((const struct gpu *)a)->bus,
		      ((const struct gpu *)b)->bus);
}

int qd_gpu_minor_order(const char *dir, char *err, size_t errlen)
{
	struct gpu *gpus;
	struct dirent *e;
	size_t n = 0;
	int rv = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0; /* no NVIDIA driver: nothing to compare */
	gpus = calloc(MAX_GPUS, sizeof(*gpus));
	if (!gpus) {
		closedir(d);
		return qd_errf(err, errlen, "out of memory");
	}
	while (n < MAX_GPUS && (e = readdir(d))) {
		if (e->d_name[0] == '.' ||
		    strlen(e->d_name) >= sizeof(gpus[n].bus))
			continue;
		gpus[n].minor = read_minor(dir, e->d_name);
		if (gpus[n].minor < 0)
			continue;
		snprintf(gpus[n].bus, sizeof(gpus[n].bus), "%s", e->d_name);
		n++;
	}
	closedir(d);
	/* Bus ids are fixed-width hex ("0000:3b:00.0"): sorted as text, in
	 * bus order. */
	qsort(gpus, n, sizeof(*gpus), by_bus);
	for (size_t i = 1; i < n && !rv; i++)
		if (gpus[i].minor <= gpus[i - 1].minor)
			rv = qd_errf(
			    err, errlen,
			    "AutoDetect: GPU %s is /dev/nvidia%ld but GPU %s, "
			    "after it in PCI bus order, is /dev/nvidia%ld "
			    "(%s): "
			    "Slurm numbers GPUs in bus order and /dev/nvidiaN "
			    "by minor, so a step's GPU indices would name "
			    "other "
			    "GPUs; list them with File= in gres.conf (in bus "
			    "order), or set gpu_devices= in plugstack.conf",
			    gpus[i - 1].bus, gpus[i - 1].minor, gpus[i].bus,
			    gpus[i].minor, dir);
	free(gpus);
	return rv;
}
