// The C interface between `tilepuzzles bench` (checker/bench.cpp, compiled by the host compiler)
// and the GPU benchmark module (bench/gpu_benchmarks.cu, compiled by nvcc into
// tilepuzzles_bench_gpu.so), which the command loads with dlopen: the tilepuzzles program itself
// never needs nvcc, as with the puzzles' GPU modules (checker/gpu_module.cu).
#pragma once

extern "C" {

// Bumped whenever a struct below changes.
inline constexpr int tp_bench_abi_version = 5;

// One measured kernel, configuration and size; the strings live until the callback returns.
struct tp_bench_row {
  const char* benchmark;  // the puzzle id, or "copy" for the ceiling
  const char* variant;    // the configuration, e.g. "B0=1 B1=2048"
  const char* size;       // bench/README.md's format: "134217728", "4096x1024"
  const char* dtype;      // "fp32", ...
  double x;               // the sweep's abscissa (elements, or columns)
  const char* x_name;     // what x counts
  double time_ms, min_ms, max_ms;  // median, fastest and slowest timed launch
  int runs;                // samples, each between two CUDA events
  int launches_per_sample; // back-to-back launches in a sample (more than 1 for short kernels)
  int graph;               // 1: a sample's launches were one CUDA graph's replay; 0: on the stream
  double bytes, flops;    // the work the row counts (0 when not counted)
  double max_error;       // largest relative error against the reference at this size
  const char* problem;    // null, or why the row has no time (a wrong result)
  const char* causal;     // "yes" or "no" for attention, "" otherwise
};

struct tp_bench_request {
  const char* const* benchmarks;  // puzzle ids from checker/bench_catalogue.hpp, none pending
  int benchmark_count;
  int warmup;  // untimed launches before the timed ones
  int runs;    // timed samples; the median is reported
};

// One tensor of a puzzle's case, made by the host from the puzzle's spec: its bytes in its
// dtype, an output's poisoned (NaN, INT_MIN) or zeroed as the checker launches it.
struct tp_bench_tensor {
  const char* name;
  int output;  // 1 where the kernel writes it
  const void* bytes;
  long long byte_count;
};

// A puzzle's case at a benchmark's size: what `check --gpu` would launch, at a size no case of
// the checker has. It lives until the next make_case.
struct tp_bench_case {
  int grid[3];                     // the spec's grid for these sizes and block sizes
  int tensor_count;
  const tp_bench_tensor* tensors;  // in the kernel's argument order, before its sizes
};

struct tp_bench_host {
  void* context;
  void (*started)(void* context, const char* gpu, double ceiling_bytes);  // once, first
  void (*progress)(void* context, const char* what, int done, int total);
  void (*row)(void* context, const tp_bench_row* row);
  // The case of puzzle `puzzle` (an id) at `sizes` (the spec's sizes, in its order) for the
  // block sizes `blocks`, its inputs filled as the checker fills them (seed 0); null, with
  // `*problem` saying why, where the puzzle has no spec or the sizes do not fit it.
  const tp_bench_case* (*make_case)(void* context, const char* puzzle, const int* sizes,
                                    int size_count, const int* blocks, int block_count,
                                    const char** problem);
  // The outputs of one launch of the last case (`outputs[i]`: tensor i's bytes as the kernel
  // wrote them, null for an input), judged against the spec's reference with the spec's
  // tolerance: `*problem` is the checker's diagnostic where they differ (null where they agree).
  // Returns the largest error of an element relative to the largest magnitude of its output.
  double (*judge)(void* context, const void* const* outputs, const char** problem);
};

using tp_bench_run_fn = int (*)(int abi_version, const tp_bench_request* request,
                                const tp_bench_host* host, char* error, int error_size);

// Returns 0 after every row was reported; 1 with `error` filled when the GPU failed (a CUDA error,
// too little memory). A wrong result is a row with a problem, not an error.
int tilepuzzles_bench_gpu_run(int abi_version, const tp_bench_request* request,
                              const tp_bench_host* host, char* error, int error_size);
}
