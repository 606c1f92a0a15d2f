// The puzzle specs, and the helpers they share: Eigen views of tensors and common budgets.
#pragma once

#include <Eigen/Dense>
#include <functional>
#include <string>
#include <vector>

#include "checker/spec.hpp"

namespace tp::specs {

const puzzle_spec& vector_add();
const puzzle_spec& long_softmax_3loop();
const puzzle_spec& long_softmax_2loop();
const puzzle_spec& flash_attention_simple();
const puzzle_spec& matmul();

// References compute in double.
using matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Eigen::ArrayXd as_array(const tensor& t);
// A row-major [rows, cols] view of t's values starting at element `first`, in double.
matrix as_matrix(const tensor& t, long long rows, long long cols, long long first = 0);
void set_from(tensor& t, const Eigen::ArrayXd& values);
void set_from(tensor& t, const matrix& values, long long first = 0);

// Every element of each named buffer is loaded at most `times` times over the whole launch.
budget each_element_read_at_most(std::vector<std::string> names, int times);
// Every element of each named buffer is stored at most `times` times over the whole launch.
budget each_element_written_at_most(std::vector<std::string> names, int times);
// No program loads any one element of each named buffer more than `times` times.
budget each_program_reads_each_element_at_most(std::vector<std::string> names, int times);

}  // namespace tp::specs
