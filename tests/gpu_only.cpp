// check_options::gpu_only: the sandboxed `check --gpu` runs the simulator's check in one runner,
// then, once it passes, the GPU's runs alone in a second (checker/isolate.cpp). These tests need
// no GPU: the GPU's launchers are stand-ins with gpu::launcher's signature, one that runs the
// reference solution in the simulator (right outputs) and one that writes nothing (wrong ones).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "checker/check.hpp"
#include "checker/gpu.hpp"
#include "checker/isolate.hpp"
#include "checker/modules.hpp"
#include "checker/registry.hpp"
#include "checker/report.hpp"
#include "checker/sim_launch.hpp"

namespace {

const tp::puzzle_spec& puzzle(const char* id) {
  const tp::puzzle_spec* p = tp::find_puzzle(id);
  REQUIRE(p != nullptr);
  return *p;
}

std::vector<tp::judged_run> gpu_runs_of(const std::vector<tp::judged_run>& runs) {
  std::vector<tp::judged_run> on_gpu;
  std::copy_if(runs.begin(), runs.end(), std::back_inserter(on_gpu),
               [](const tp::judged_run& r) { return r.gpu; });
  return on_gpu;
}

// The GPU stand-ins. Each counts its launches; the right one runs the simulator's launcher of the
// same kernel entry (the solution module's), which writes the outputs into the request's tensors.
int gpu_launches = 0;
std::vector<tp::sim_launcher> simulated_solution;

template <std::size_t Kernel>
std::string gpu_stand_in_right(const tp::launch_request& request) {
  ++gpu_launches;
  const tp::sim_outcome run = simulated_solution.at(Kernel)(request, tl::sim::launch_options{});
  return run.result.error ? "the simulated stand-in failed: " + run.result.error->message : "";
}

std::string gpu_stand_in_writing_nothing(const tp::launch_request&) {
  ++gpu_launches;
  return "";
}

}  // namespace

TEST_CASE("With gpu_only, a check --gpu judges the GPU's runs alone, the same ones in the same order",
          "[gpu_only]") {
  const tp::puzzle_spec& spec = puzzle("vector-add");
  tp::check_options options;
  options.gpu = true;
  const auto both = tp::judged_runs(spec, options);
  options.gpu_only = true;
  const auto gpu_alone = tp::judged_runs(spec, options);
  REQUIRE_FALSE(gpu_alone.empty());
  CHECK(gpu_alone == gpu_runs_of(both));
  // The twin: without gpu_only the simulator's runs come first, every one of them.
  REQUIRE(both.size() > gpu_alone.size());
  CHECK_FALSE(both.front().gpu);
  CHECK(static_cast<int>(both.size() - gpu_alone.size()) == tp::simulator_runs(spec));

  SECTION("without --gpu, or for a puzzle not on the GPU, gpu_only changes nothing") {
    tp::check_options simulator_only;
    simulator_only.gpu_only = true;
    CHECK(tp::judged_runs(spec, simulator_only) == tp::judged_runs(spec, {}));
    tp::puzzle_spec off_gpu = spec;
    off_gpu.id = "vector-add-not-in-the-list";
    REQUIRE_FALSE(tp::gpu_enabled(off_gpu));
    CHECK(tp::judged_runs(off_gpu, options).size() ==
          static_cast<std::size_t>(tp::simulator_runs(spec)));
  }
}

TEST_CASE("The sandboxed runner reads gpu_only from its arguments, and only with the GPU",
          "[gpu_only][sandbox]") {
  const tp::puzzle_spec& spec = puzzle("vector-add");
  tp::check_options options;
  options.gpu = true;
  options.gpu_only = true;
  options.large_tier = false;
  options.seed = 7;
  const auto arguments = tp::runner_arguments(spec, options, 512);
  const std::vector<std::string> flag = {"--gpu-only", "1"};
  CHECK(std::search(arguments.begin(), arguments.end(), flag.begin(), flag.end()) != arguments.end());
  const tp::runner_request read = tp::read_runner_arguments(arguments);
  CHECK(read.puzzle_id == spec.id);
  CHECK(read.memory_mb == 512);
  CHECK(read.options.gpu);
  CHECK(read.options.gpu_only);
  CHECK_FALSE(read.options.large_tier);
  CHECK(read.options.seed == 7);
  CHECK(read.options.orders == options.orders);

  SECTION("the twin: a check of both in one runner says nothing of it, and the runner makes both") {
    options.gpu_only = false;
    const auto plain = tp::runner_arguments(spec, options, 512);
    CHECK(std::find(plain.begin(), plain.end(), "--gpu-only") == plain.end());
    const tp::runner_request both = tp::read_runner_arguments(plain);
    CHECK(both.options.gpu);
    CHECK_FALSE(both.options.gpu_only);
  }
  SECTION("a puzzle not on the GPU is checked in the simulator: neither --gpu nor --gpu-only") {
    tp::puzzle_spec off_gpu = spec;
    off_gpu.id = "vector-add-not-in-the-list";
    const auto simulator = tp::runner_arguments(off_gpu, options, 512);
    CHECK(std::find(simulator.begin(), simulator.end(), "--gpu") == simulator.end());
    CHECK(std::find(simulator.begin(), simulator.end(), "--gpu-only") == simulator.end());
    CHECK_FALSE(tp::read_runner_arguments(simulator).options.gpu_only);
  }
}

TEST_CASE("check_puzzle with gpu_only makes the GPU's runs and none of the simulator's",
          "[gpu_only]") {
  const tp::puzzle_spec& spec = puzzle("vector-add");
  REQUIRE(spec.kernels.size() <= 3);
  auto loaded = tp::load_module({&spec, tp::impl::solution, tp::backend::simulator}, {});
  if (auto* problem = std::get_if<tl::sim::diagnostic>(&loaded)) FAIL(problem->message);
  simulated_solution.clear();
  for (auto* l : std::get<tp::loaded_module>(loaded).launchers)
    simulated_solution.push_back(reinterpret_cast<tp::sim_launcher>(l));
  const std::vector<void (*)()> right = {reinterpret_cast<void (*)()>(&gpu_stand_in_right<0>),
                                         reinterpret_cast<void (*)()>(&gpu_stand_in_right<1>),
                                         reinterpret_cast<void (*)()>(&gpu_stand_in_right<2>)};

  tp::check_options options;
  options.which = tp::impl::solution;
  options.gpu = true;
  options.gpu_launchers.assign(right.begin(), right.begin() + static_cast<long>(spec.kernels.size()));
  const int gpu_judged = static_cast<int>(gpu_runs_of(tp::judged_runs(spec, options)).size());

  SECTION("solved: every GPU run, no simulator run, no dry run at the size bounds") {
    options.gpu_only = true;
    gpu_launches = 0;
    const tp::puzzle_report report = tp::check_puzzle(spec, options);
    INFO(tp::report_details(report));
    REQUIRE(report.status == tp::status::solved);
    CHECK(report.runs == 0);
    CHECK(report.bound_runs == 0);
    CHECK(report.gpu_runs == gpu_judged);
    CHECK(gpu_launches == gpu_judged);
  }
  SECTION("the twin without gpu_only: the simulator's runs first, then the same GPU runs") {
    gpu_launches = 0;
    const tp::puzzle_report report = tp::check_puzzle(spec, options);
    INFO(tp::report_details(report));
    REQUIRE(report.status == tp::status::solved);
    CHECK(report.runs == tp::simulator_runs(spec));
    CHECK(report.bound_runs > 0);
    CHECK(report.gpu_runs == gpu_judged);
    CHECK(gpu_launches == gpu_judged);
  }
  SECTION("a GPU kernel that writes nothing fails on the GPU's first run, with gpu_only as without") {
    options.gpu_launchers.assign(spec.kernels.size(),
                                 reinterpret_cast<void (*)()>(&gpu_stand_in_writing_nothing));
    for (const bool gpu_only : {true, false}) {
      options.gpu_only = gpu_only;
      const tp::puzzle_report report = tp::check_puzzle(spec, options);
      INFO(tp::report_details(report));
      CHECK(report.status == tp::status::failed);
      CHECK(report.gpu_runs == 1);
      CHECK(report.runs == (gpu_only ? 0 : tp::simulator_runs(spec)));
      REQUIRE_FALSE(report.diagnostics.empty());
      CHECK_THAT(report.diagnostics.front().message, Catch::Contains("on the GPU"));
    }
  }
}
