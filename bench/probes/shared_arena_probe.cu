// What cuda/shared_arena.cuh relies on, seen on a GPU: where ptxas puts a kernel's static
// __shared__ markers, where the dynamic region starts, and what cudaFuncGetAttributes counts as
// static. Three markers for buffers of 5000, Big and 128 bytes; the kernel is launched with 128
// times its static shared memory, as the launcher does. Built with the GPU benchmarks
// (tilepuzzles_shared_arena_probe); bench/gpu_session.sh's bench step runs it.
//
// bench/HISTORY.md ("The shared-memory arena") records what an H200 printed.
#include <cstdio>
template <int Id, int Bytes>
__device__ __forceinline__ unsigned marker() {
  __shared__ unsigned char m[(Bytes + 127) / 128];
  return static_cast<unsigned>(__cvta_generic_to_shared(m));
}
extern __shared__ __align__(128) unsigned char arena[];
__device__ unsigned sreg_dyn() { unsigned r; asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r)); return r; }
__device__ unsigned sreg_tot() { unsigned r; asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(r)); return r; }
__device__ unsigned sreg_rb() { unsigned r; asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(r)); return r; }
__device__ unsigned sreg_re() { unsigned r; asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(r)); return r; }
template <int Big>
__global__ void k(unsigned* out) {
  unsigned a = marker<1, 5000>();
  unsigned b = marker<2, Big>();
  unsigned c = marker<3, 128>();
  unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(arena));
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    out[0] = a; out[1] = b; out[2] = c; out[3] = d; out[4] = sreg_dyn(); out[5] = sreg_tot(); out[6] = sreg_rb(); out[7] = sreg_re();
  }
  // touch the whole arena to prove it is there
  unsigned n = sreg_dyn();
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) arena[i] = 1;
}
template <int Big>
void run(const char* name) {
  cudaFuncAttributes attr{};
  cudaFuncGetAttributes(&attr, k<Big>);
  size_t dyn = attr.sharedSizeBytes * 128;
  cudaError_t e = cudaFuncSetAttribute(k<Big>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn);
  unsigned* o; cudaMalloc(&o, 64); cudaMemset(o, 0xff, 64);
  k<Big><<<4, 128, dyn>>>(o);
  cudaError_t e2 = cudaDeviceSynchronize();
  unsigned h[8]; cudaMemcpy(h, o, 32, cudaMemcpyDeviceToHost);
  std::printf("%s static=%zu dyn=%zu setattr=%s run=%s a=%#x b=%#x c=%#x arena=%#x dynreg=%u tot=%u rb=%#x re=%#x\n", name, attr.sharedSizeBytes, dyn,
    cudaGetErrorString(e), cudaGetErrorString(e2), h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]);
}
int main() {
  int v; cudaDeviceGetAttribute(&v, cudaDevAttrReservedSharedMemoryPerBlock, 0); std::printf("reserved per block %d\n", v);
  cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0); std::printf("optin %d\n", v);
  run<20000>("small"); run<100000>("big"); run<180000>("bigger");
}
