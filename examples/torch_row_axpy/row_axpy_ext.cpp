// tl_row_axpy: a PyTorch extension that runs a `tl` kernel (RowAxpy, examples/row_axpy/) on
// torch tensors. CUDA tensors go to the GPU through tl::launch on torch's current stream; CPU
// tensors go to the simulator through tl::simulate, which checks every access, and its
// diagnostic comes back to Python. Built by setup.py; test_row_axpy.py shows the use.
//
//   z = tl_row_axpy.row_axpy(alpha, x, y)        # z = alpha[:, None] * x + y
//   z, found = tl_row_axpy.simulate(alpha, x, y)  # CPU tensors: found["kind"], found["report"]
//
// This file is only the torch layer: the tensors' checks and the dispatch. The calls into tl
// are row_axpy_sim.cpp (g++) and row_axpy_gpu.cu (nvcc), which see no torch.
#include <torch/extension.h>

#ifdef ROW_AXPY_WITH_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include <climits>
#include <stdexcept>
#include <string>
#include <tuple>

#include "row_axpy_host.hpp"

namespace {

// pybind11 turns std::invalid_argument into Python's ValueError.
[[noreturn]] void refuse(const std::string& why) {
  throw std::invalid_argument("tl_row_axpy: " + why);
}

row_axpy::kernel kernel_named(const std::string& name) {
  if (name == "row_axpy") return row_axpy::kernel::row_axpy;
  if (name == "masking_columns_only") return row_axpy::kernel::masking_columns_only;
  refuse("the kernel is 'row_axpy' or 'masking_columns_only' (the planted bug), not '" + name +
         "'");
}

// The kernel's contract: float32, x and y [R, C], alpha [R], all on one device. Returns them
// contiguous (a copy where they are not), since the kernel reads row-major memory.
std::tuple<torch::Tensor, torch::Tensor, torch::Tensor> checked(const torch::Tensor& alpha,
                                                                const torch::Tensor& x,
                                                                const torch::Tensor& y) {
  for (const auto* t : {&alpha, &x, &y})
    if (t->scalar_type() != torch::kFloat32)
      refuse(std::string("alpha, x and y are float32; one is ") +
             std::string(c10::toString(t->scalar_type())));
  if (x.dim() != 2) refuse("x is a matrix [R, C]; it has " + std::to_string(x.dim()) + " dims");
  if (!y.sizes().equals(x.sizes())) refuse("y has x's shape [R, C]");
  if (alpha.dim() != 1 || alpha.size(0) != x.size(0))
    refuse("alpha has one scale per row of x: shape [" + std::to_string(x.size(0)) + "]");
  if (alpha.device() != x.device() || y.device() != x.device())
    refuse("alpha, x and y are on one device; they are on " + alpha.device().str() + ", " +
           x.device().str() + " and " + y.device().str());
  // The kernel's offsets are int32 (r * C + c), on the GPU as in Triton.
  if (x.numel() > INT_MAX)
    refuse("x has " + std::to_string(x.numel()) +
           " elements; the kernel's offsets are int32, so at most 2^31 - 1");
  return {alpha.contiguous(), x.contiguous(), y.contiguous()};
}

pybind11::dict as_dict(const row_axpy::simulated& s) {
  pybind11::dict d;
  d["clean"] = s.clean;
  d["kind"] = s.kind;
  d["report"] = s.report;
  d["program"] = pybind11::make_tuple(s.program[0], s.program[1], s.program[2]);
  d["buffer"] = s.buffer;
  d["source"] = s.source;
  d["programs_run"] = s.programs_run;
  d["x_loads"] = s.x_loads;
  d["z_stores"] = s.z_stores;
  return d;
}

// The simulator on CPU tensors: z and what it found.
std::tuple<torch::Tensor, row_axpy::simulated> run_simulator(const torch::Tensor& alpha_in,
                                                             const torch::Tensor& x_in,
                                                             const torch::Tensor& y_in,
                                                             const std::string& kernel,
                                                             const std::string& order,
                                                             unsigned long long seed) {
  const row_axpy::kernel which = kernel_named(kernel);
  auto [alpha, x, y] = checked(alpha_in, x_in, y_in);
  if (!x.device().is_cpu())
    refuse("the simulator runs on CPU tensors; these are on " + x.device().str() +
           " (pass x.cpu(), ...)");
  torch::Tensor z = torch::empty_like(x);
  row_axpy::simulated found;
  if (x.numel() == 0) return {z, found};  // no program to run (a grid of 0 is refused)
  {
    // The simulation touches no Python object: other Python threads may run meanwhile.
    pybind11::gil_scoped_release no_gil;
    found = row_axpy::simulate(which, alpha.data_ptr<float>(), x.data_ptr<float>(),
                               y.data_ptr<float>(), z.data_ptr<float>(),
                               static_cast<int>(x.size(0)), static_cast<int>(x.size(1)), order,
                               seed);
  }
  return {z, found};
}

// z = alpha[:, None] * x + y: CUDA tensors on the GPU, CPU tensors in the simulator (which
// raises RuntimeError with its diagnostic where it finds one).
torch::Tensor row_axpy_op(const torch::Tensor& alpha_in, const torch::Tensor& x_in,
                          const torch::Tensor& y_in, const std::string& kernel) {
  if (x_in.device().is_cpu()) {
    auto [z, found] = run_simulator(alpha_in, x_in, y_in, kernel, "forward", 0);
    if (!found.clean) throw std::runtime_error(found.report);  // RuntimeError in Python
    return z;
  }
  if (!x_in.device().is_cuda()) refuse("x is on " + x_in.device().str() + ": CPU or CUDA");
  if (kernel_named(kernel) != row_axpy::kernel::row_axpy)
    refuse("the planted bug runs in the simulator only (CPU tensors): on the GPU it would read "
           "past x unchecked");
#ifdef ROW_AXPY_WITH_CUDA
  // x's device current, so that z is allocated there and the stream is that device's.
  const c10::cuda::CUDAGuard device(x_in.device());
  auto [alpha, x, y] = checked(alpha_in, x_in, y_in);
  torch::Tensor z = torch::empty_like(x);
  if (x.numel() == 0) return z;
  // torch's current stream (torch.cuda.stream(s) sets it): the launch is ordered after what
  // torch queued there before, and what torch queues there next runs after it.
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(x.device().index()).stream();
  row_axpy::launch_on_gpu(alpha.data_ptr<float>(), x.data_ptr<float>(), y.data_ptr<float>(),
                          z.data_ptr<float>(), static_cast<int>(x.size(0)),
                          static_cast<int>(x.size(1)), stream);
  return z;
#else
  refuse("this build of tl_row_axpy has no GPU launch (it was built without CUDA: "
         "TL_ROW_AXPY_CUDA=1 when building it, where torch has CUDA and nvcc is found)");
#endif
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "A tl kernel (RowAxpy: z = alpha[:, None] * x + y) on torch tensors: CUDA tensors "
            "on the GPU, CPU tensors in the tilepuzzles simulator";
  m.def("row_axpy", &row_axpy_op, pybind11::arg("alpha"), pybind11::arg("x"), pybind11::arg("y"),
        pybind11::arg("kernel") = "row_axpy",
        "z = alpha[:, None] * x + y. CUDA tensors: tl::launch on torch's current stream. CPU "
        "tensors: the simulator, which raises RuntimeError with its diagnostic where it finds "
        "one. kernel='masking_columns_only' is the planted out-of-bounds bug (CPU only).");
  m.def(
      "simulate",
      [](const torch::Tensor& alpha, const torch::Tensor& x, const torch::Tensor& y,
         const std::string& kernel, const std::string& order, unsigned long long seed) {
        auto [z, found] = run_simulator(alpha, x, y, kernel, order, seed);
        return pybind11::make_tuple(z, as_dict(found));
      },
      pybind11::arg("alpha"), pybind11::arg("x"), pybind11::arg("y"),
      pybind11::arg("kernel") = "row_axpy", pybind11::arg("order") = "forward",
      pybind11::arg("seed") = 0,
      "(z, found): the kernel in the simulator on CPU tensors, in the program order 'forward', "
      "'reverse' or 'shuffle' (with seed). found is a dict: clean, kind, report, program, "
      "buffer, source, programs_run, x_loads, z_stores. It never raises for what the kernel "
      "does wrong.");
#ifdef ROW_AXPY_WITH_CUDA
  m.attr("has_cuda") = true;
#else
  m.attr("has_cuda") = false;
#endif
  m.attr("block_rows") = row_axpy::block_rows;
  m.attr("block_cols") = row_axpy::block_cols;
}
