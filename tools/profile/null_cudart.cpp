// A CUDA runtime that does nothing: every call succeeds at once and no kernel runs. Loaded in
// place of libcudart.so.13 (null_cudart.sh), it lets perf and the allocation test see the host
// work of oflite's CUDA path on a machine without a GPU; the launch itself costs nothing here.
#include <driver_types.h>
#include <vector_types.h>

#include <cstdlib>
#include <cstring>
#define API extern "C" __attribute__((visibility("default")))
static thread_local int current_device = 0;
static char dummy[64];
API int cudaGetDeviceCount(int* c) {
  *c = 1;
  return 0;
}
API int cudaSetDevice(int d) {
  current_device = d;
  return 0;
}
API int cudaGetDevice(int* d) {
  *d = current_device;
  return 0;
}
API int cudaGetDeviceProperties(cudaDeviceProp* p, int) {
  std::memset(p, 0, sizeof(*p));
  std::strcpy(p->name, "stub");
  p->multiProcessorCount = 132;
  p->maxThreadsPerMultiProcessor = 2048;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  p->sharedMemPerBlock = 48 << 10;
  p->sharedMemPerBlockOptin = 227 << 10;
  p->sharedMemPerMultiprocessor = 228 << 10;
  p->major = 9;
  p->minor = 0;
  p->regsPerBlock = 65536;
  p->regsPerMultiprocessor = 65536;
  p->maxBlocksPerMultiProcessor = 32;
  p->totalGlobalMem = 1ull << 37;
  p->l2CacheSize = 50 << 20;
  p->maxGridSize[0] = 1 << 30;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  return 0;
}
API int cudaMalloc(void** p, size_t n) {
  *p = std::aligned_alloc(256, (n + 255) / 256 * 256 + 256);
  return 0;
}
API int cudaFree(void* p) {
  std::free(p);
  return 0;
}
API int cudaHostAlloc(void** p, size_t n, unsigned) { return cudaMalloc(p, n); }
API int cudaFreeHost(void* p) {
  std::free(p);
  return 0;
}
API int cudaMemcpyAsync(void* d, const void* s, size_t n, int, void*) {
  std::memcpy(d, s, n);
  return 0;
}
API int cudaMemsetAsync(void* d, int v, size_t n, void*) {
  std::memset(d, v, n);
  return 0;
}
API int cudaMemGetInfo(size_t* f, size_t* t) {
  *f = *t = 1ull << 37;
  return 0;
}
API int cudaPointerGetAttributes(cudaPointerAttributes* a, const void* p) {
  std::memset(a, 0, sizeof(*a));
  a->type = cudaMemoryTypeDevice;
  a->devicePointer = (void*)p;
  return 0;
}
API int cudaStreamCreateWithFlags(void** s, unsigned) {
  *s = dummy;
  return 0;
}
API int cudaStreamDestroy(void*) { return 0; }
API int cudaStreamSynchronize(void*) { return 0; }
API int cudaDeviceSynchronize() { return 0; }
API int cudaEventCreate(void** e) {
  *e = dummy;
  return 0;
}
API int cudaEventCreateWithFlags(void** e, unsigned) {
  *e = dummy;
  return 0;
}
API int cudaEventDestroy(void*) { return 0; }
API int cudaEventRecord(void*, void*) { return 0; }
API int cudaEventSynchronize(void*) { return 0; }
API int cudaEventElapsedTime(float* ms, void*, void*) {
  *ms = 1;
  return 0;
}
API int cudaFuncGetAttributes(cudaFuncAttributes* a, const void*) {
  std::memset(a, 0, sizeof(*a));
  a->maxThreadsPerBlock = 1024;
  return 0;
}
API int cudaFuncSetAttribute(const void*, int, int) { return 0; }
API int cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* n, const void*, int, size_t,
                                                               unsigned) {
  *n = 2;
  return 0;
}
API int cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, const void*, int, size_t) {
  *n = 2;
  return 0;
}
API int cudaGetLastError() { return 0; }
API int cudaPeekAtLastError() { return 0; }
API const char* cudaGetErrorName(int) { return "stub"; }
API const char* cudaGetErrorString(int) { return "stub"; }
API int cudaRuntimeGetVersion(int* v) {
  *v = 13000;
  return 0;
}
API int cudaDriverGetVersion(int* v) {
  *v = 13000;
  return 0;
}
API void** __cudaRegisterFatBinary(void*) { return (void**)dummy; }
API void __cudaRegisterFatBinaryEnd(void**) {}
API void __cudaUnregisterFatBinary(void**) {}
API void __cudaRegisterFunction(void**, const char*, char*, const char*, int, void*, void*, void*,
                                void*, int*) {}
API void __cudaRegisterVar(void**, char*, char*, const char*, int, size_t, int, int) {}
static thread_local dim3 g, b;
static thread_local size_t sm;
static thread_local void* st;
API unsigned __cudaPushCallConfiguration(dim3 gd, dim3 bd, size_t s, void* str) {
  g = gd;
  b = bd;
  sm = s;
  st = str;
  return 0;
}
API int __cudaPopCallConfiguration(dim3* gd, dim3* bd, size_t* s, void* str) {
  *gd = g;
  *bd = b;
  *s = sm;
  *(void**)str = st;
  return 0;
}
API int __cudaGetKernel(void** k, const void* f) {
  *k = (void*)f;
  return 0;
}
API int __cudaLaunchKernel(void*, dim3, dim3, void**, size_t, void*) { return 0; }
API int cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, void*) { return 0; }
