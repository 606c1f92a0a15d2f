#!/usr/bin/env bash
# The layers of docs/ARCHITECTURE.md, as includes: the front (tile/) includes no backend but in
# tile/tl.hpp, which picks one; checker/ includes nothing from bench/ (bench/ depends on checker/,
# never the reverse). Prints each include that points the wrong way.
#   bash includes_point_one_way.sh SOURCE_DIR
set -uo pipefail
cd "$1"
wrong=$(grep -rnE '#include "(simulator|cuda)/' tile/ | grep -v '^tile/tl\.hpp:'
        grep -rnE '#include "bench/' checker/)
if [ -n "$wrong" ]; then
  echo "includes that point the wrong way (docs/ARCHITECTURE.md, the layers):"
  echo "$wrong"
  exit 1
fi
echo "tile/ includes a backend only in tile/tl.hpp; checker/ includes nothing from bench/"
