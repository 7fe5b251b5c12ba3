// Hand-written kernels for the runtime's GPU smoke test (run.sh compiles this
// file to PTX with nvcc). extern "C" keeps each PTX entry named like its
// kernel, as the artifact format requires; kernels.tilus.in describes them.

#include <cuda_fp16.h>

// y = a * x + y, with an explicit fma so the CPU reference (fmaf) matches
// bit for bit.
extern "C" __global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = fmaf(a, x[i], y[i]);
}

// workspace[b] = scale * (sum of x over block b's 128 elements). Declares
// 64 KiB of dynamic shared memory, beyond the default 48 KiB, so it only
// launches if the runtime opted the function in; the scale travels through
// the last shared word to make the kernel really touch all of it.
extern "C" __global__ void block_sums(const float *x, int n, __half scale,
                                      float *workspace) {
  extern __shared__ float smem[]; // 16384 floats
  int t = threadIdx.x;
  int i = blockIdx.x * 128 + t;
  smem[t] = i < n ? x[i] : 0.0f;
  if (t == 0)
    smem[16383] = __half2float(scale);
  __syncthreads();
  for (int stride = 64; stride > 0; stride /= 2) {
    if (t < stride)
      smem[t] += smem[t + stride];
    __syncthreads();
  }
  if (t == 0)
    workspace[blockIdx.x] = smem[0] * smem[16383];
}

// Reads what block_sums left in the runtime's reused workspace, on a 2-D
// grid: out[y * numBlocks + i] = workspace[i] + y.
extern "C" __global__ void gather_sums(float *out, long long numBlocks,
                                       float *workspace) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < numBlocks)
    out[blockIdx.y * numBlocks + i] = workspace[i] + (float)blockIdx.y;
}
