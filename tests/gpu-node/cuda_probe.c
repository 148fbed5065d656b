/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd-cuda-probe: what CUDA lets a task do, through the driver's libcuda
 * alone (no toolkit): cuInit, cuDeviceGetCount, then on device 0 a
 * context and a 1 MiB allocation. One line on stdout, e.g.
 *
 *   cuInit=0 devices=1 ctx=0 alloc=0     a GPU the task may use
 *   cuInit=100                           CUDA_ERROR_NO_DEVICE: none
 *
 * Each number is the CUresult of that call (CUDA Driver API, cuda.h). Exit
 * status 0 when the line was printed, 2 when libcuda.so.1 cannot be loaded
 * (no NVIDIA driver on the node). tests/gpu-node/checks.sh reads it.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

/* The driver API's types, as cuda.h declares them for 64-bit hosts. */
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef unsigned long long CUdeviceptr;

struct cuda {
	CUresult (*init)(unsigned int flags);
	CUresult (*device_count)(int *count);
	CUresult (*device_get)(CUdevice *dev, int ordinal);
	CUresult (*ctx_create)(CUcontext *ctx, unsigned int flags,
			       CUdevice dev);
	CUresult (*mem_alloc)(CUdeviceptr *ptr, size_t size);
	CUresult (*mem_free)(CUdeviceptr ptr);
	CUresult (*ctx_destroy)(CUcontext ctx);
};

/* The _v2 entry points are the ones cuda.h maps these names to since
 * CUDA 3.2; every driver since exports them. */
static int load(void *lib, struct cuda *c)
{
	*(void **)&c->init = dlsym(lib, "cuInit");
	*(void **)&c->device_count = dlsym(lib, "cuDeviceGetCount");
	*(void **)&c->device_get = dlsym(lib, "cuDeviceGet");
	*(void **)&c->ctx_create = dlsym(lib, "cuCtxCreate_v2");
	*(void **)&c->mem_alloc = dlsym(lib, "cuMemAlloc_v2");
	*(void **)&c->mem_free = dlsym(lib, "cuMemFree_v2");
	*(void **)&c->ctx_destroy = dlsym(lib, "cuCtxDestroy_v2");
	return c->init && c->device_count && c->device_get && c->ctx_create &&
	       c->mem_alloc && c->mem_free && c->ctx_destroy;
}

int main(void)
{
	struct cuda c;
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	CUresult r;
	CUdevice dev;
	CUcontext ctx;
	CUdeviceptr ptr;
	int n = 0;

	if (!lib || !load(lib, &c)) {
		fprintf(stderr, "qd-cuda-probe: %s\n",
			lib ? "libcuda.so.1 lacks the driver API" : dlerror());
		return 2;
	}
	r = c.init(0);
	printf("cuInit=%d", r);
	if (r == 0) {
		r = c.device_count(&n);
		printf(" devices=%d", r ? -1 : n);
	}
	if (r == 0 && n > 0 && c.device_get(&dev, 0) == 0) {
		r = c.ctx_create(&ctx, 0, dev);
		printf(" ctx=%d", r);
		if (r == 0) {
			r = c.mem_alloc(&ptr, 1 << 20);
			printf(" alloc=%d", r);
			if (r == 0)
				c.mem_free(ptr);
			c.ctx_destroy(ctx);
		}
	}
	printf("\n");
	return 0;
}
