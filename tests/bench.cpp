// `tilepuzzles bench`: what it says without a GPU and to bad arguments (the real program), and the
// table, CSV and plot it makes of measured rows (fed here by hand: the GPU run is
// bench/gpu_session.sh's).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "checker/bench_cases.hpp"
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
  for (const char* args :
       {"bench", "bench softmax-fused --csv /dev/null --plot /dev/null", "bench matmul",
        "bench flash-attention"}) {
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
  CHECK_THAT(r.err, Catch::Contains("vector-add, long-softmax-3loop, long-softmax-2loop, "
                                    "softmax-fused, matmul, flash-attention"));

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
  CHECK(second[column("causal")].empty());
}

TEST_CASE("bench's CSV says whether an attention row is causal", "[bench]") {
  auto rows = sample_rows();
  for (const char* causal : {"no", "yes"}) {
    auto r = measured("flash-attention", "B0=64 B1=32 D=64", "4x16x4096x64", 4096, 3.0, 0);
    r.dtype = "fp16";
    r.flops = 4.0 * 4 * 16 * 4096.0 * 4096 * 64;
    r.causal = causal;
    rows.push_back(r);
  }
  std::vector<std::string> header, attention;
  for (const auto& line : lines_of(tp::bench::csv(rows, {"GPU", "c", "cmd", 0}))) {
    if (line.rfind("#", 0) == 0) continue;
    if (header.empty()) header = split(line);
    else if (line.rfind("flash-attention,", 0) == 0) attention.push_back(line);
  }
  int causal_column = -1;
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == "causal") causal_column = static_cast<int>(i);
  REQUIRE(causal_column >= 0);
  REQUIRE(attention.size() == 2);
  CHECK(split(attention[0])[causal_column] == "no");
  CHECK(split(attention[1])[causal_column] == "yes");
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

namespace {

tp::bench::row matmul_row(std::string benchmark, std::string variant, std::string dtype, int n,
                          double ms) {
  auto r = measured(std::move(benchmark), std::move(variant),
                    std::to_string(n) + "x" + std::to_string(n) + "x" + std::to_string(n), n, ms, 0);
  r.dtype = std::move(dtype);
  r.x_name = "M = N = K";
  r.flops = 2.0 * n * n * static_cast<double>(n);
  return r;
}

// The copy, a softmax row, then matmul's sweep: cuBLAS in two dtypes and the solution in fp32.
std::vector<tp::bench::row> matmul_rows() {
  auto rows = sample_rows();
  rows.resize(2);
  rows.push_back(matmul_row("cublas", "cublasSgemm", "fp32", 4096, 2.75));
  rows.push_back(matmul_row("cublas", "cublasGemmEx TF32", "tf32", 4096, 0.40));
  rows.push_back(matmul_row("matmul", "B0=128 B1=64 B_MID=16", "fp32", 4096, 5.50));
  rows.push_back(matmul_row("cublas", "cublasSgemm", "fp32", 2048, 0.40));
  rows.push_back(matmul_row("matmul", "B0=128 B1=64 B_MID=16", "fp32", 2048, 0.50));
  auto wrong = matmul_row("matmul", "B0=64 B1=64 B_MID=16", "fp32", 2048, 0);
  wrong.problem = "WRONG: relative error 0.3 against a double-precision product (bound 2e-05 for fp32)";
  rows.push_back(wrong);
  rows.push_back(matmul_row("matmul", "B0=64 B1=64 B_MID=16", "tf32", 1024, 0.1));  // no cuBLAS tf32 at 1024
  return rows;
}

}  // namespace

TEST_CASE("bench's matmul table counts TFLOP/s and sets each row against cuBLAS in its dtype", "[bench]") {
  const auto rows = matmul_rows();
  tp::bench::run_info info{"GPU", "c", "cmd", tp::bench::ceiling_gbps(rows)};
  CHECK(tp::bench::table_of("cublas") == "matmul");
  CHECK(tp::bench::benchmarks_in(rows) == std::vector<std::string>{"long-softmax-2loop", "matmul"});
  REQUIRE(tp::bench::baseline_of(rows[4], rows) == &rows[2]);  // fp32 4096 against SGEMM 4096
  CHECK(tp::bench::baseline_of(rows[6], rows) == &rows[5]);
  CHECK(tp::bench::baseline_of(rows[8], rows) == nullptr);     // no cuBLAS tf32 at that size
  CHECK(tp::bench::baseline_of(rows[1], rows) == nullptr);     // a softmax counts bytes

  const auto t = tp::bench::table("matmul", rows, info);
  CHECK(lines_of(t).size() == 8);  // the header, six rows of this table and the wrong one
  CHECK_THAT(t, Catch::Contains("TFLOP/s"));
  CHECK_THAT(t, Catch::Contains("x cuBLAS"));
  CHECK(t.find("% copy") == std::string::npos);
  // 2 * 4096^3 flops in 5.5 ms: 24.99 TFLOP/s, 2.75 / 5.5 = 0.50 of SGEMM's time.
  CHECK_THAT(t, Catch::Matches(R"((.|\n)*tl B0=128 B1=64 B_MID=16 +4096x4096x4096 +fp32 +5\.5000 .* 25\.0 +0\.50 (.|\n)*)"));
  CHECK_THAT(t, Catch::Matches(R"((.|\n)*cuBLAS cublasSgemm +4096x4096x4096 +fp32 +2\.7500 .* 50\.0 +1\.00 (.|\n)*)"));
  CHECK_THAT(t, Catch::Matches(R"((.|\n)*tl B0=64 B1=64 B_MID=16 +1024x1024x1024 +tf32 .* 21\.5 +- (.|\n)*)"));
  CHECK_THAT(t, Catch::Contains("WRONG: relative error 0.3 against a double-precision product"));
  // The softmax table is not mixed into it, nor it into the softmax's.
  CHECK(t.find("4096x1024 ") == std::string::npos);
  CHECK(tp::bench::table("long-softmax-2loop", rows, info).find("cublas") == std::string::npos);

  std::vector<std::string> header, data;
  for (const auto& line : lines_of(tp::bench::csv(rows, info))) {
    if (line.rfind("#", 0) == 0) continue;
    if (header.empty()) header = split(line);
    else data.push_back(line);
  }
  auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    FAIL("no column " << name);
    return -1;
  };
  REQUIRE(data.size() == 8);  // every timed row: the copy, the softmax, six of matmul's table
  const auto ours = split(data[4]);
  REQUIRE(ours.size() == header.size());
  CHECK(ours[column("benchmark")] == "matmul");
  CHECK(std::stod(ours[column("tflops")]) == Approx(24.99).epsilon(1e-3));
  CHECK(std::stod(ours[column("vs_cublas")]) == Approx(0.5));
  CHECK(std::stod(ours[column("flops")]) == Approx(2.0 * 4096.0 * 4096.0 * 4096.0));
  CHECK(ours[column("gbps")].empty());  // no bytes counted, no GB/s pretended
  CHECK(ours[column("pct_copy")].empty());
  const auto softmax = split(data[1]);
  CHECK(softmax[column("tflops")].empty());
  CHECK(softmax[column("vs_cublas")].empty());
  CHECK_FALSE(softmax[column("gbps")].empty());
}

TEST_CASE("bench's plot draws matmul in TFLOP/s, cuBLAS dashed, without the copy ceiling", "[bench]") {
  const auto rows = matmul_rows();
  tp::bench::run_info info{"NVIDIA H100", "abc1234", "cmd", tp::bench::ceiling_gbps(rows)};
  const std::string svg = tp::bench::svg_plot(rows, info);
  const auto at = svg.find("matmul (against cuBLAS), NVIDIA H100");
  REQUIRE(at != std::string::npos);
  const std::string panel = svg.substr(at);
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t i = panel.find(what); i != std::string::npos; i = panel.find(what, i + 1)) ++n;
    return n;
  };
  CHECK_THAT(panel, Catch::Contains(">TFLOP/s (log scale)</text>"));
  CHECK(panel.find("copy, 1 GiB") == std::string::npos);
  // Series: cuBLAS SGEMM, cuBLAS TF32 (dashed), tl 128x64 fp32, tl 64x64 tf32.
  CHECK(count("<polyline class=\"series\"") == 4);
  CHECK(count("stroke-dasharray=\"3 3\"") == 2);  // the two cuBLAS lines
  CHECK(count("stroke-dasharray") == 4);            // and their legends (no copy ceiling)
  CHECK_THAT(panel, Catch::Contains("cuBLAS cublasSgemm"));
  CHECK_THAT(panel, Catch::Contains("tl B0=128 B1=64 B_MID=16 fp32"));
  CHECK_THAT(panel, Catch::Contains("25.0 TFLOP/s"));
}

namespace {

std::vector<float> floats_of(const tp_bench_tensor& t) {
  std::vector<float> out(static_cast<std::size_t>(t.byte_count) / sizeof(float));
  std::memcpy(out.data(), t.bytes, static_cast<std::size_t>(t.byte_count));
  return out;
}

}  // namespace

TEST_CASE("bench's puzzle cases are the checker's, and a wrong output fails them as check does",
          "[bench]") {
  tp::bench::spec_cases cases;
  const char* problem = nullptr;
  const int sizes[] = {5, 70}, blocks[] = {1, 32};
  const tp_bench_case* c = cases.make("rms-norm", sizes, 2, blocks, 2, &problem);
  REQUIRE(c != nullptr);
  CHECK(problem == nullptr);
  CHECK((c->grid[0] == 5 && c->grid[1] == 1 && c->grid[2] == 1));
  REQUIRE(c->tensor_count == 3);
  CHECK(std::string(c->tensors[0].name) == "x");
  CHECK(c->tensors[2].output == 1);
  CHECK(c->tensors[2].byte_count == 5 * 70 * 4);

  // y = x / sqrt(mean(x^2) + 1e-5) * w, computed here in double from the case's own inputs.
  const std::vector<float> x = floats_of(c->tensors[0]), w = floats_of(c->tensors[1]);
  std::vector<float> y(5 * 70);
  for (int r = 0; r < 5; ++r) {
    double squares = 0;
    for (int j = 0; j < 70; ++j) squares += double(x[r * 70 + j]) * x[r * 70 + j];
    const double rstd = 1 / std::sqrt(squares / 70 + double(1e-5f));
    for (int j = 0; j < 70; ++j) y[r * 70 + j] = static_cast<float>(x[r * 70 + j] * rstd * w[j]);
  }
  const void* outputs[] = {nullptr, nullptr, y.data()};
  double error = cases.judge(outputs, &problem);
  CHECK(problem == nullptr);
  CHECK(error < 1e-6);

  // The same sizes with other block sizes: the same inputs (not filled again), the spec's grid.
  const int other_blocks[] = {4, 64};
  const tp_bench_case* again = cases.make("rms-norm", sizes, 2, other_blocks, 2, &problem);
  REQUIRE(again != nullptr);
  CHECK(again->tensors[0].bytes == c->tensors[0].bytes);
  CHECK((again->grid[0] == 2 && again->grid[1] == 1));
  CHECK(cases.judge(outputs, &problem) < 1e-6);
  CHECK(problem == nullptr);

  y[3 * 70 + 69] += 1.0f;
  error = cases.judge(outputs, &problem);
  REQUIRE(problem != nullptr);
  CHECK_THAT(problem, Catch::StartsWith("wrong-result: at the benchmark's size"));
  CHECK(error > 1e-3);

  // The output as it goes in (NaN): nothing written.
  const void* poisoned[] = {nullptr, nullptr, c->tensors[2].bytes};
  cases.judge(poisoned, &problem);
  REQUIRE(problem != nullptr);
  CHECK_THAT(problem, Catch::StartsWith("nan-inf"));

  const int one_size[] = {5};
  CHECK(cases.make("rms-norm", one_size, 1, blocks, 2, &problem) == nullptr);
  CHECK_THAT(problem, Catch::Contains("takes 2 sizes and 2 block sizes"));
  CHECK(cases.make("no-such-puzzle", sizes, 2, blocks, 2, &problem) == nullptr);
  CHECK_THAT(problem, Catch::Contains("no puzzle 'no-such-puzzle'"));
  const int long_rows[] = {4, 100};
  CHECK(cases.make("softmax-backward", long_rows, 2, blocks, 2, &problem) == nullptr);
  CHECK_THAT(problem, Catch::Contains("T <= B1"));
}
