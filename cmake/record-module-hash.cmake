# Records what the build made of a puzzle module: its SHA-256, beside it (run after each link by
# cmake/puzzle_modules.cmake). The checker (checker/modules.cpp) loads only a module whose bytes
# still have this hash, and builds again one that does not.
#   cmake -DMODULE=path/to/x.stub.so -DRECORD=path/to/x.stub.sha256 -P record-module-hash.cmake
file(SHA256 "${MODULE}" hash)
file(WRITE "${RECORD}.part" "${hash}\n")
file(RENAME "${RECORD}.part" "${RECORD}")
