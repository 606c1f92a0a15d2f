// `tilepuzzles bench`: what it says without a GPU and to bad arguments (the real program), and the
// table, CSV and plot it makes of measured rows (fed here by hand: the GPU run is
// bench/gpu_session.sh's).
#include <catch2/catch.hpp>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "checker/bench_report.hpp"
#include "checker/gpu.hpp"
#include "checker/svg_plot.hpp"
#include "cli_support.hpp"

using cli_support::run_cli;

TEST_CASE("bench without a GPU says so and exits 1", "[cli][bench]") {
  const tp::gpu::device_status device = tp::gpu::probe();
  if (device.available) {
    WARN("a GPU is here (" << device.description
                           << "): the benchmark itself runs in bench/gpu_session.sh, not here");
    return;
  }
  for (const char* args : {"bench", "bench softmax-fused --csv /dev/null --plot /dev/null"}) {
    const auto r = run_cli(args);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("tilepuzzles bench: the benchmarks time the solutions on an "
                                      "NVIDIA GPU, and there is none to run on: " + device.reason));
    CHECK_THAT(r.err, Catch::Contains("-DTILEPUZZLES_CUDA=ON"));
    CHECK(r.out.empty());  // nothing was measured, nothing pretends to be
  }
}

TEST_CASE("bench refuses what it cannot benchmark before looking for a GPU", "[cli][bench]") {
  auto r = run_cli("bench no-such-puzzle");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown puzzle 'no-such-puzzle'"));
  CHECK_THAT(r.err, Catch::Contains("vector-add, long-softmax-3loop, long-softmax-2loop, softmax-fused"));

  r = run_cli("bench matmul");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("matmul is not benchmarked yet: its sweep and cuBLAS beside it are not in this command yet"));

  r = run_cli("bench long-sum");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("puzzle long-sum has no GPU benchmark"));

  r = run_cli("bench --csv /nonexistent-folder/tp.csv");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("cannot write /nonexistent-folder/tp.csv"));

  r = run_cli("bench --runs 0");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
}

namespace {

tp::bench::row measured(std::string benchmark, std::string variant, std::string size, double x,
                        double ms, double bytes) {
  tp::bench::row r;
  r.benchmark = std::move(benchmark);
  r.variant = std::move(variant);
  r.size = std::move(size);
  r.dtype = "fp32";
  r.x = x;
  r.x_name = "columns";
  r.time_ms = ms;
  r.min_ms = ms * 0.99;
  r.max_ms = ms * 1.02;
  r.runs = 50;
  r.launches_per_sample = ms < 0.1 ? 9 : 1;
  r.bytes = bytes;
  r.max_error = 3e-7;
  return r;
}

std::vector<tp::bench::row> sample_rows() {
  std::vector<tp::bench::row> rows;
  rows.push_back(measured("copy", "cudaMemcpyAsync", "268435456", 268435456, 0.720, 2147483648.0));
  rows.push_back(measured("long-softmax-2loop", "B0=1 B1=1024", "4096x1024", 1024, 0.012, 33554432));
  rows.push_back(measured("long-softmax-2loop", "B0=1 B1=1024", "4096x2048", 2048, 0.024, 67108864));
  rows.push_back(measured("long-softmax-2loop", "B0=1 B1=2048", "4096x1024", 1024, 0.013, 33554432));
  rows.push_back(measured("long-softmax-2loop", "B0=1 B1=2048", "4096x2048", 2048, 0.023, 67108864));
  auto wrong = measured("softmax-fused", "B0=1 B1=N", "4096x256", 256, 0, 8388608);
  wrong.problem = "WRONG: relative error 0.5 against a double-precision softmax (bound 1e-5)";
  rows.push_back(wrong);
  rows.push_back(measured("softmax-fused", "B0=1 B1=N", "4096x512", 512, 0.008, 16777216));
  return rows;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) out.push_back(field);
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

}  // namespace

TEST_CASE("bench's CSV has bench/README.md's columns and every timed row", "[bench]") {
  const auto rows = sample_rows();
  tp::bench::run_info info{"NVIDIA H100 80GB HBM3", "abc1234", "tilepuzzles bench --csv x.csv",
                           tp::bench::ceiling_gbps(rows)};
  CHECK(info.ceiling_gbps == Approx(2147483648.0 / 0.720 / 1e6));
  std::vector<std::string> data;
  std::vector<std::string> header;
  int comments = 0;
  for (const auto& line : lines_of(tp::bench::csv(rows, info))) {
    if (line.rfind("#", 0) == 0) {
      ++comments;
      if (line.find("WRONG") != std::string::npos)
        CHECK_THAT(line, Catch::Contains("softmax-fused B0=1 B1=N 4096x256"));
      continue;
    }
    CHECK(line.find('"') == std::string::npos);
    if (header.empty()) header = split(line);
    else data.push_back(line);
  }
  CHECK(comments == 4);  // the command, the GPU and commit, the bytes counted, the wrong row
  REQUIRE(header.size() >= 5);
  CHECK(std::vector<std::string>(header.begin(), header.begin() + 4) ==
        std::vector<std::string>{"benchmark", "variant", "size", "dtype"});
  auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    FAIL("no column " << name);
    return -1;
  };
  REQUIRE(data.size() == 6);  // the wrong row has no time, so it is not a data row
  const auto second = split(data[1]);
  REQUIRE(second.size() == header.size());
  CHECK(second[column("benchmark")] == "long-softmax-2loop");
  CHECK(second[column("variant")] == "B0=1 B1=1024");
  CHECK(second[column("size")] == "4096x1024");
  CHECK(std::stod(second[column("time_ms")]) == Approx(0.012));
  CHECK(std::stoi(second[column("runs")]) == 50);
  CHECK(std::stoi(second[column("launches_per_sample")]) == 9);
  CHECK(std::stod(second[column("gbps")]) == Approx(33554432 / 0.012 / 1e6).epsilon(1e-3));
  CHECK(std::stod(second[column("pct_copy")]) ==
        Approx(100 * (33554432 / 0.012) / (2147483648.0 / 0.720)).epsilon(1e-3));
  CHECK(second[column("gpu")] == "NVIDIA H100 80GB HBM3");
  CHECK(second[column("commit")] == "abc1234");
}

TEST_CASE("bench's table shows time, GB/s and percent of the copy, and why a row has none", "[bench]") {
  const auto rows = sample_rows();
  tp::bench::run_info info{"GPU", "c", "cmd", tp::bench::ceiling_gbps(rows)};
  CHECK(tp::bench::benchmarks_in(rows) ==
        std::vector<std::string>{"long-softmax-2loop", "softmax-fused"});
  const auto softmax = tp::bench::table("long-softmax-2loop", rows, info);
  CHECK(lines_of(softmax).size() == 5);  // the header and four rows
  // 33554432 bytes in 0.012 ms: 2796 GB/s, 93.8 % of 2983 GB/s.
  CHECK_THAT(softmax, Catch::Matches(R"((.|\n)*B0=1 B1=1024 +4096x1024 +fp32 +0\.0120 .* 9 +2796 +93\.8 +3\.0e-07(.|\n)*)"));
  const auto fused = tp::bench::table("softmax-fused", rows, info);
  CHECK_THAT(fused, Catch::Contains("4096x256     fp32    WRONG: relative error 0.5"));
}

TEST_CASE("bench's plot is one self-contained SVG with a line per variant per sweep", "[bench]") {
  auto rows = sample_rows();
  rows[1].variant = "B0=1 <B1>";  // markup in a label is escaped
  rows[2].variant = "B0=1 <B1>";
  tp::bench::run_info info{"NVIDIA H100", "abc1234", "cmd", tp::bench::ceiling_gbps(rows)};
  const std::string svg = tp::bench::svg_plot(rows, info);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.substr(svg.size() - 7) == "</svg>\n");
  CHECK(svg.find("<script") == std::string::npos);
  CHECK(svg.find("href") == std::string::npos);  // nothing from outside the file
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count("<polyline class=\"series\"") == 3);  // two 2-loop variants, one fused
  CHECK(count("<circle") == 5);                     // every timed row but the copy
  CHECK(count("stroke-dasharray") == 4);            // the ceiling and its legend, per panel
  CHECK(count("B0=1 &lt;B1&gt;") == 1);
  CHECK(svg.find("<B1>") == std::string::npos);
  CHECK_THAT(svg, Catch::Contains("long-softmax-2loop (fp32), NVIDIA H100"));
  CHECK_THAT(svg, Catch::Contains("copy, 1 GiB: 2983 GB/s"));
  // Each opened element is closed (or self-closing): a crude but failing-able well-formedness.
  CHECK(count("<g ") == count("</g>"));
  CHECK(count("<text") == count("</text>"));
}
