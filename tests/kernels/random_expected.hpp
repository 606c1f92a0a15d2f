// Known answers of tl::randint, tl::rand and tl::randn: for each (seed, offset), the int32 bits
// of randint, the float bits of rand and of randn. Shared by the simulator's test
// (tests/random_numbers.cpp), the GPU parity test (tests/gpu/parity.cpp) and the comparison with
// Triton on a GPU (tests/gpu/triton_random_bits.py --triton, which reads this file).
//
// Not produced by tl: the rows are the output of `python3 tests/gpu/triton_random_bits.py
// --reproduce`, a NumPy transcription of Triton's python/triton/language/random.py (Philox
// 4x32-10, randint, uint_to_uniform_float), whose Philox gives Random123's known answers (the
// first row's randint is Random123's for a zero counter and key). Its randn follows Triton's
// pair_uniform_to_normal step by step in float, with ln u1 and cos of the angle from NumPy's
// double log and cos rounded once to float, as tl computes them (tile/lanes.hpp).
#pragma once

#include <cstdint>

namespace test_kernels::random {

struct known_answer {
  int seed;
  int offset;
  std::uint32_t randint;     // the int32 lane's bits
  std::uint32_t rand_bits;   // the float's bits
  std::uint32_t randn_bits;  // the float's bits
};

inline constexpr known_answer known_answers[] = {
    {0, 0, 0x6627e8d5u, 0x3f4c4fd1u, 0x3d3eacd1u},
    {0, 1, 0xf8e4cca4u, 0x3d63666au, 0xbec6d74fu},
    {0, 2, 0x04faa329u, 0x3d1f5464u, 0xbfd1a869u},
    {0, 3, 0xc990ef29u, 0x3ed9bc42u, 0x3f21ac0du},
    {0, 1000, 0x0aaddb88u, 0x3daaddb7u, 0xbff5a2cau},
    {0, -1, 0xc5b20a9du, 0x3ee937d5u, 0xbf9d1c77u},
    {0, 2147483647, 0x5fb3fbfeu, 0x3f3f67f7u, 0xbf43372bu},
    {0, -2147483648, 0xbf9c529bu, 0x3f00c75au, 0xbf942078u},
    {0, 123456789, 0xc56c4902u, 0x3eea4edbu, 0xbf8f79bfu},
    {1, 0, 0xe3e80670u, 0x3e60bfcbu, 0x3eda5371u},
    {1, 1, 0xac08141bu, 0x3f27efd7u, 0xbc27e33bu},
    {1, 2, 0x3f55b3f0u, 0x3efd56cfu, 0x3f664c85u},
    {1, 3, 0xc1f3cfa1u, 0x3ef830c0u, 0x3f8a14adu},
    {1, 1000, 0x2e6b4a7du, 0x3eb9ad29u, 0x3f925362u},
    {1, -1, 0x00790b3fu, 0x3b72167du, 0xc051ad24u},
    {1, 2147483647, 0x32254c84u, 0x3ec89531u, 0x3f9799c2u},
    {1, -2147483648, 0xacbf06dbu, 0x3f2681f1u, 0x3f581239u},
    {1, 123456789, 0xd0990c6eu, 0x3ebd9bcdu, 0x3f1514a0u},
    {42, 0, 0x9ceaf053u, 0x3f462a1eu, 0x3f291df5u},
    {42, 1, 0xfcdb2127u, 0x3cc937b5u, 0xbfc577a3u},
    {42, 2, 0xd36c0225u, 0x3eb24ff6u, 0xbf17289fu},
    {42, 3, 0xbac70475u, 0x3f0a71f6u, 0xbf1a0420u},
    {42, 1000, 0xc7f39578u, 0x3ee031a9u, 0xbf540cbcu},
    {42, -1, 0x6e2412deu, 0x3f5c4825u, 0xbf0bc6adu},
    {42, 2147483647, 0xd0f2743bu, 0x3ebc362eu, 0xbf2d850eu},
    {42, -2147483648, 0x2bf9e5dbu, 0x3eafe796u, 0xbf851c14u},
    {42, 123456789, 0x5f01aba0u, 0x3f3e0356u, 0xbf308a83u},
    {-1, 0, 0x72a47709u, 0x3f6548edu, 0x3e718089u},
    {-1, 1, 0x19fed511u, 0x3e4ff6a8u, 0xbfc1a7f7u},
    {-1, 2, 0x17625282u, 0x3e3b1293u, 0x3fa08d65u},
    {-1, 3, 0x8e8fd014u, 0x3f62e05fu, 0xbea2aba3u},
    {-1, 1000, 0xe1b10477u, 0x3e7277dbu, 0xbfbe7993u},
    {-1, -1, 0xc25672deu, 0x3ef6a634u, 0x3f97bfe5u},
    {-1, 2147483647, 0xd6a65d28u, 0x3ea5668au, 0x3f8d1241u},
    {-1, -2147483648, 0xbf47d986u, 0x3f01704cu, 0xbf832344u},
    {-1, 123456789, 0xb418b8a7u, 0x3f17ce8eu, 0xbf8286fbu},
    {12345, 0, 0xd1fa3e81u, 0x3eb81705u, 0xbf7c7a6cu},
    {12345, 1, 0x00b66929u, 0x3bb66928u, 0xbf460f0cu},
    {12345, 2, 0x6c2cd495u, 0x3f5859a8u, 0xbea4cbb2u},
    {12345, 3, 0xb63e5c16u, 0x3f138347u, 0x3ec62e2eu},
    {12345, 1000, 0xa7ec4720u, 0x3f302771u, 0x3d9a6607u},
    {12345, -1, 0xca8b632du, 0x3ed5d272u, 0x3e909ef1u},
    {12345, 2147483647, 0xd3bd45adu, 0x3eb10ae8u, 0xbf7c2ccbu},
    {12345, -2147483648, 0xf5650ffcu, 0x3da9aeffu, 0xc004692au},
    {12345, 123456789, 0xf63eabf9u, 0x3d9c153fu, 0x3ff019dcu},
    {2147483647, 0, 0x57e1fa99u, 0x3f2fc3f4u, 0x3e9f8313u},
    {2147483647, 1, 0x16124322u, 0x3e309218u, 0xbfeb73efu},
    {2147483647, 2, 0x01510b76u, 0x3c2885bau, 0xbfee4d20u},
    {2147483647, 3, 0xc7bfd054u, 0x3ee100beu, 0xbfa39158u},
    {2147483647, 1000, 0x4c25fda5u, 0x3f184bfau, 0x3f3b22e3u},
    {2147483647, -1, 0xcae10b47u, 0x3ed47bd2u, 0x3f5fe6b2u},
    {2147483647, 2147483647, 0x9097de00u, 0x3f5ed043u, 0xbee78b40u},
    {2147483647, -2147483648, 0xf4c70866u, 0x3db38f79u, 0x3f15bf16u},
    {2147483647, 123456789, 0x61f08742u, 0x3f43e10eu, 0xbf3a2e19u},
    {-2147483648, 0, 0xdb8b6045u, 0x3e91d27eu, 0xbf27128fu},
    {-2147483648, 1, 0xc540c9ebu, 0x3eeafcd7u, 0x3f8daaafu},
    {-2147483648, 2, 0x733a9952u, 0x3f667532u, 0xbee0f7dfu},
    {-2147483648, 3, 0xd476a9feu, 0x3eae2557u, 0xbe7e6a5bu},
    {-2147483648, 1000, 0xbd1df7f0u, 0x3f05c40fu, 0x3f90d340u},
    {-2147483648, -1, 0xb41a27e1u, 0x3f17cbafu, 0x3f4e0311u},
    {-2147483648, 2147483647, 0xb622297cu, 0x3f13bbacu, 0xbf2f26d4u},
    {-2147483648, -2147483648, 0xda64b65fu, 0x3e966d25u, 0x3f115088u},
    {-2147483648, 123456789, 0x5de0bbb1u, 0x3f3bc176u, 0x3e4c7c12u},
    {24301, 0, 0xee1c2fccu, 0x3e0f1e81u, 0x3fada436u},
    {24301, 1, 0xe79e8ee4u, 0x3e430b88u, 0xbf42b569u},
    {24301, 2, 0x96b98a80u, 0x3f528ceau, 0x3ea1ba9fu},
    {24301, 3, 0x1ed8c74fu, 0x3e76c639u, 0xbfc59ad2u},
    {24301, 1000, 0x64be5f81u, 0x3f497cbeu, 0x3f2231abu},
    {24301, -1, 0xfb766247u, 0x3d1133b6u, 0xc017c72fu},
    {24301, 2147483647, 0x18435ae0u, 0x3e421ad6u, 0xbf5e432au},
    {24301, -2147483648, 0x8d0013d3u, 0x3f65ffd7u, 0x3ed5a548u},
    {24301, 123456789, 0x2fa5e930u, 0x3ebe97a4u, 0xbf66e8feu},
};

}  // namespace test_kernels::random
