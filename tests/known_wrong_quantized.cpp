// Known-wrong kernels of puzzle 15 (matmul-int4) fail with their diagnostic, next to the solution,
// which passes through the same path. Each wrong kernel is the solution with one mistake in how
// it unpacks the 4-bit values.
#include <catch2/catch.hpp>

#include "checker/specs/matmul_int4.hpp"
#include "check_as_puzzle.hpp"

namespace wrong {

// Unpacks with `Step` bits between values, nibble order reversed or not, `Mask`, and with or
// without the zero point.
template <int Step, bool Reversed, int Mask, bool UseZero>
struct Int4 {
  template <int B0, int B1, int B_MID>
  struct Kernel {
    static constexpr int num_warps = 4;

    template <class Packed>
    static auto unpack(const Packed& packed) {
      auto j = tl::arange<8>();
      auto shifts = (j * (Reversed ? -1 : 1) + (Reversed ? 7 : 0)) * Step;
      return (tl::expand_dims<2>(packed) >> shifts) & Mask;
    }

    TL_KERNEL void operator()(tl::ptr<const float> scale, tl::ptr<const int> zero,
                              tl::ptr<const int> weight, tl::ptr<const float> activation,
                              tl::ptr<float> z, int N0, int N1, int MID) const {
      constexpr int GROUPS = B_MID / 8;
      auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
      auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
      auto row_mask = rows < N0;
      tl::tile<float, B0, B1> acc = 0.0f;
      for (int k = 0; k < MID; k += B_MID) {
        auto groups = k / 8 + tl::arange<GROUPS>();
        auto group_mask = row_mask.col() & (groups < MID / 8).row();
        auto packed = tl::load(weight + rows.col() * (MID / 8) + groups.row(), group_mask, 0);
        auto scales = tl::load(scale + rows.col() * (MID / 8) + groups.row(), group_mask, 0.0f);
        auto words = k / 64 + tl::arange<GROUPS / 8>();
        auto zero_words = tl::load(zero + rows.col() * (MID / 64) + words.row(),
                                   row_mask.col() & (words < MID / 64).row(), 0);
        auto zeros = tl::reshape<B0, GROUPS>(unpack(zero_words)) * (UseZero ? 1 : 0);
        auto weights = tl::expand_dims<2>(scales) *
                       tl::cast<float>(unpack(packed) - tl::expand_dims<2>(zeros));
        auto ks = k + tl::arange<B_MID>();
        auto a = tl::load(activation + ks.col() * N1 + cols.row(),
                          (ks < MID).col() & (cols < N1).row(), 0.0f);
        acc = tl::dot(tl::reshape<B0, B_MID>(weights), a, acc);
      }
      tl::store(z + rows.col() * N1 + cols.row(), acc, row_mask.col() & (cols < N1).row());
    }
  };
};

}  // namespace wrong

namespace {
using binding = tp::bindings::matmul_int4;
using as_puzzle::check_as;
using as_puzzle::check_solution;
using as_puzzle::check_wrong;
using as_puzzle::the_diagnostic;
}  // namespace

TEST_CASE("Known-wrong matmul-int4 kernels fail with their diagnostic", "[known-wrong]") {
  SECTION("the correct twin: 4-bit steps, lowest value first, & 0xF, minus the zero point") {
    CHECK(check_as<wrong::Int4<4, false, 0xF, true>::Kernel, binding>("matmul-int4").status ==
          tp::status::solved);
    CHECK(check_solution("matmul-int4").status == tp::status::solved);
  }
  SECTION("the values unpacked highest first (a wrong shift): wrong-result") {
    const auto report = check_wrong<wrong::Int4<4, true, 0xF, true>::Kernel, binding>("matmul-int4");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK(d.buffer == "z");
    CHECK(report.sizes == std::vector<int>{1, 1, 64});
  }
  SECTION("shifts of 8 bits per value: index-overflow at the shift by 32") {
    const auto report = check_wrong<wrong::Int4<8, false, 0xF, true>::Kernel, binding>("matmul-int4");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "index-overflow");
    CHECK_THAT(d.message, Catch::Contains("shifts an int32 by 32"));
  }
  SECTION("a 3-bit mask (& 0x7): the values 8 to 15 come out wrong") {
    const auto report = check_wrong<wrong::Int4<4, false, 0x7, true>::Kernel, binding>("matmul-int4");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK(report.sizes == std::vector<int>{1, 1, 64});
  }
  SECTION("no mask at all: a whole word minus its zero point leaves int32: index-overflow") {
    const auto report = check_wrong<wrong::Int4<4, false, -1, true>::Kernel, binding>("matmul-int4");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "index-overflow");
    CHECK_THAT(d.message, Catch::Contains("leaves int32"));
  }
  SECTION("the zero point left out: wrong-result") {
    const auto report = check_wrong<wrong::Int4<4, false, 0xF, false>::Kernel, binding>("matmul-int4");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK(report.sizes == std::vector<int>{1, 1, 64});
  }
}
