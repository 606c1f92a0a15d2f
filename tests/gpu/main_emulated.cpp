// The GPU parity tests on the host emulation of the CUDA backend: they run on every machine.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
