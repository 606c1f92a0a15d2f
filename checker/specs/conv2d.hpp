// Puzzle 13: a batched 2-D convolution (cross-correlation) of single-channel images with one
// small filter, zero beyond the bottom and right edges.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(Conv2d, int B0, int B1)

namespace tp::bindings {

struct conv2d : puzzle_binding<conv2d, puzzles::Conv2d, solutions::Conv2d> {
  using signature = void(tl::ptr<const float> x, tl::ptr<const float> k, tl::ptr<float> z, int N0,
                         int H, int W, int KH, int KW);
  using configs = block_list<blocks<8, 8>, blocks<16, 4>>;
};

}  // namespace tp::bindings

// The spec: the checker's half of this file, compiled once, into the checker
// (cmake/puzzle_list.cmake). The puzzle's modules include this file for its binding only.
#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::conv2d {

void describe(puzzle_spec& s) {
  s.summary = "z[n, i, j] = sum_{a, b} x[n, i + a, j + b] * k[a, b] for x, z [N0, H, W] and "
              "k[KH, KW], zero beyond the edges; a B0 x B1 tile of one image per program";
  s.size_names = {"N0", "H", "W", "KH", "KW"};
  s.block_names = {"B0", "B1"};
  // With (B0, B1) = (8, 8) and (16, 4).
  s.cases = {
      // Catches a missing mask on the image or on z.
      {{1, 1, 1, 1, 1},
       "One pixel and a 1 x 1 filter: every lane of the tile but one is masked off."},
      // Catches the filter read transposed (k[b, a]), taps past the right and bottom edges not
      // taken as 0, and an image offset left out.
      {{4, 8, 8, 4, 4}, "The classic puzzle set's 4 images of 8 x 8 with a 4 x 4 filter."},
      // Catches masks on the window's rows or columns off by one.
      {{2, 17, 10, 3, 3}, "H past a multiple of B0 by 1, W past one of 8 by 2."},
      // Catches products or sums kept in a half type (float16 overflows past 65504).
      {{2, 17, 10, 3, 3},
       "x far from zero (magnitudes 2e4 to 3e4) and k positive (0.5 to 1), so that nothing "
       "cancels: z of about 1e5 to 3e5.",
       {{"x", magnitudes_between(2e4, 3e4, 1)}, {"k", magnitudes_between(0.5, 1.0, 1)}}},
      // Catches KH and KW swapped.
      {{3, 11, 19, 2, 5}, "H past 8 by 3, W past 8 and 16 by 3; a filter that is not square."},
      // Catches taps beyond the edges read instead of masked to 0.
      {{1, 3, 2, 4, 4}, "A filter larger than the image: most taps fall beyond the edges."},
      // Catches the row stride H where it is W.
      {{2, 34, 35, 5, 2}, "H past 32 by 2, W past 32 by 3 (H != W); a tall filter."},
      // Catches swapped axes and masks tied to one block size.
      {{2, 67, 37, 3, 4},
       "Images of 67 x 37 (primes): a ragged last tile on both axes with every block size, "
       "grids of 9 x 5 and 5 x 10 tiles, a filter that is not square."},
      // Catches filter loops or a tile of taps hard-coded up to 8 x 8.
      large_case({2, 37, 35, 11, 9},
                 "The large tier: an 11 x 9 filter, larger than 8 in each direction."),
      // Catches a row bound or a grid hard-coded up to 1024.
      large_case({1, 1027, 6, 3, 2}, "The large tier: images of 1027 = 2^10 + 3 rows."),
      // Catches a column bound or a grid hard-coded up to 1024.
      large_case({1, 5, 1027, 2, 3}, "The large tier: images of 1027 = 2^10 + 3 columns."),
      // Catches an image bound or a grid hard-coded up to 1024.
      large_case({1027, 3, 4, 2, 2}, "The large tier: 1027 = 2^10 + 3 images."),
  };
  s.blocked_sizes = {{1, 0}, {2, 1}};
  s.tensors = {{"x", false, sizes_at({0, 1, 2}), signed_fill()},
               {"k", false, sizes_at({3, 4}), signed_fill()},
               {"z", true, sizes_at({0, 1, 2}), nullptr}};
  s.size_bounds = {{1, 2147483647, 1, 1, 1}, {1, 8191, 262140, 3, 3}, {65535, 32767, 1, 2, 2},
                   {1, 46340, 46340, 64, 64}};
  s.size_bounds_rule =
      "N0 * H * W < 2^31, N0 <= 65535 and W <= 65535 * 4 (the GPU grid's axes 2 and 1), "
      "KH, KW <= 64";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[1], b[0]), cdiv(n[2], b[1]), n[0]};
  };
  s.reference = [](const std::vector<int>& n, std::vector<tensor>& t) {
    const long long N0 = n[0], H = n[1], W = n[2], KH = n[3], KW = n[4];
    const matrix k = as_matrix(t[1], KH, KW);
    for (long long image = 0; image < N0; ++image) {
      // The image with KH - 1 rows and KW - 1 columns of zeros below and to the right.
      matrix padded = matrix::Zero(H + KH - 1, W + KW - 1);
      padded.topLeftCorner(H, W) = as_matrix(t[0], H, W, image * H * W);
      matrix z(H, W);
      for (long long i = 0; i < H; ++i)
        for (long long j = 0; j < W; ++j)
          z(i, j) = padded.block(i, j, KH, KW).cwiseProduct(k).sum();
      set_from(t[2], z, image * H * W);
    }
  };
  s.rtol = 1e-5;
  s.atol = 1e-5;
  // Each output element reads one element of x per filter tap, and each output element belongs
  // to one program: so no element of x needs to be read more than KH * KW times in all.
  s.budgets = {each_program_reads_each_element_at_most({"k"}, 1),
               each_element_read_at_most({"x"}, "KH * KW",
                                         [](const std::vector<int>& n) { return n[3] * n[4]; },
                                         "once per filter tap"),
               each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs::conv2d
#endif  // TILEPUZZLES_SPEC
