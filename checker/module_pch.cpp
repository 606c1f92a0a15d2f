// Empty: the target that owns the puzzle modules' precompiled header (cmake/puzzle_modules.cmake).
