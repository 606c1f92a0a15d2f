// The simulator supplies every hook the front calls (tile/backend_hooks.hpp). Checked in this one
// unit rather than in every kernel's: the check instantiates each hook for four element types.
#include "tile/backend_hooks.hpp"

static_assert(tl::tile_backend<>, "the simulator lacks a hook of tile/backend_hooks.hpp");
