// `tilepuzzles watch`: check again whenever a file in the puzzles directory is saved. It polls
// the files' modification times and sizes (no inotify, no new dependency); an editor that saves
// in several steps is waited out until the directory is quiet. Ctrl-C (SIGINT) or SIGTERM ends
// it cleanly.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace tp {

struct watch_options {
  std::string dir;           // the directory watched, as given
  std::string shown_dir;     // as messages show it
  int interval_ms = 300;     // between two looks at the directory
  bool once = false;         // stop after the first check a change started (for tests)
};

// The files of `dir` a learner saves (not hidden, not editor backups), relative names.
std::vector<std::string> watched_files(const std::string& dir);

// Runs `check({})` once, then `check(changed)` with the names of the files that changed each time
// some did. Returns 0 when interrupted, or the exit code of the check a change started with
// `once`.
int watch(const watch_options& options,
          const std::function<int(const std::vector<std::string>& changed)>& check);

}  // namespace tp
