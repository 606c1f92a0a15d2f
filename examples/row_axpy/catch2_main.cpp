// Catch2 2's main, for a build whose standard library is not the one the distribution's
// Catch2WithMain was built with (CMakeLists.txt).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
