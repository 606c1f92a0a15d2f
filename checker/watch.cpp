#include "checker/watch.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include <cstdio>
#include <ctime>
#include <map>

namespace tp {

namespace {

volatile sig_atomic_t interrupted = 0;

void on_interrupt(int) { interrupted = 1; }

struct file_state {
  long long mtime_ns = 0;
  long long size = -1;
  bool operator==(const file_state&) const = default;
};

using snapshot = std::map<std::string, file_state>;

snapshot look(const std::string& dir) {
  snapshot s;
  for (const std::string& name : watched_files(dir)) {
    struct stat st {};
    if (::stat((dir + "/" + name).c_str(), &st) != 0) continue;
    s[name] = {static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec,
               static_cast<long long>(st.st_size)};
  }
  return s;
}

std::vector<std::string> differences(const snapshot& before, const snapshot& after) {
  std::vector<std::string> changed;
  for (const auto& [name, state] : after) {
    const auto it = before.find(name);
    if (it == before.end() || !(it->second == state)) changed.push_back(name);
  }
  for (const auto& [name, state] : before)
    if (!after.count(name)) changed.push_back(name);
  return changed;
}

// Sleeps, but wakes up for a signal.
void pause_ms(int ms) {
  timespec t{ms / 1000, (ms % 1000) * 1000000L};
  ::nanosleep(&t, nullptr);
}

std::string clock_now() {
  const std::time_t now = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", std::localtime(&now));
  return buf;
}

}  // namespace

std::vector<std::string> watched_files(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return names;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.empty() || name[0] == '.' || name.back() == '~' || name[0] == '#') continue;
    if (name.size() > 4 && (name.ends_with(".swp") || name.ends_with(".swx") ||
                            name.ends_with(".tmp")))
      continue;
    struct stat st {};
    if (::stat((dir + "/" + name).c_str(), &st) == 0 && S_ISREG(st.st_mode)) names.push_back(name);
  }
  ::closedir(d);
  return names;
}

int watch(const watch_options& options,
          const std::function<int(const std::vector<std::string>& changed)>& check) {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: the sleep ends at once
  struct sigaction old_int {}, old_term {};
  ::sigaction(SIGINT, &action, &old_int);
  ::sigaction(SIGTERM, &action, &old_term);
  interrupted = 0;

  // Taken before the first check, so a file saved while it runs is checked after it.
  snapshot seen = look(options.dir);
  check({});
  int result = 0;
  while (!interrupted) {
    std::printf("\n[%s] Watching %s/ for changes (Ctrl-C to stop).\n", clock_now().c_str(),
                options.shown_dir.c_str());
    std::fflush(stdout);
    std::vector<std::string> changed;
    while (!interrupted && changed.empty()) {
      pause_ms(options.interval_ms);
      changed = differences(seen, look(options.dir));
    }
    if (interrupted) break;
    // An editor may write a file in several steps: wait until the directory is quiet.
    snapshot now = look(options.dir);
    for (int i = 0; i < 20 && !interrupted; ++i) {
      pause_ms(options.interval_ms / 2 + 1);
      snapshot again = look(options.dir);
      if (again == now) break;
      now = std::move(again);
    }
    changed = differences(seen, now);
    seen = std::move(now);
    if (interrupted || changed.empty()) continue;
    std::printf("\n[%s] Changed:", clock_now().c_str());
    for (const auto& name : changed) std::printf(" %s/%s", options.shown_dir.c_str(), name.c_str());
    std::printf("\n\n");
    std::fflush(stdout);
    result = check(changed);
    if (options.once) break;
  }
  if (interrupted) {
    std::printf("\nStopped watching.\n");
    result = 0;
  }
  std::fflush(stdout);
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  return result;
}

}  // namespace tp
