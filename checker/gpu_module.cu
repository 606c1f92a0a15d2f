// One puzzle's kernel, the learner's stub or the reference solution, built by nvcc for the GPU as
// a module of its own (loaded by the checker with dlopen only for `check --gpu`). The GPU
// counterpart of checker/sim_module.cpp, compiled with the same definitions.
#include "checker/gpu_launch.cuh"

#define TILEPUZZLES_MODULE_LAUNCH tp::gpu::launch
#define TILEPUZZLES_MODULE_BACKEND "gpu"
#include "checker/module_source.inc"
