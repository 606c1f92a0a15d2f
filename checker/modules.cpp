#include "checker/modules.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "checker/compile_errors.hpp"
#include "checker/module_abi.hpp"
#include "checker/puzzle_list.hpp"
#include "checker/sandbox.hpp"
#include "checker/sha256.hpp"
#include "checker/spec.hpp"

#ifndef TILEPUZZLES_BINARY_DIR
#error "checker/modules.cpp needs the build's definitions (see CMakeLists.txt)"
#endif

extern char** environ;

namespace tp {

using tl::sim::diagnostic;
namespace kind = tl::sim::kind;

namespace {

// ---------------------------------------------------------------------------------------------
// Files

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf)) return buf;
  return path;
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct file_time {
  bool exists = false;
  timespec mtime{};
  dev_t dev = 0;
  ino_t ino = 0;
};

file_time stat_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {true, st.st_mtim, st.st_dev, st.st_ino};
}

bool newer(const timespec& a, const timespec& b) {
  return a.tv_sec != b.tv_sec ? a.tv_sec > b.tv_sec : a.tv_nsec > b.tv_nsec;
}

std::string strip_trailing_slashes(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

std::string source_dir() { return TILEPUZZLES_SOURCE_DIR; }

// A path as reports show it: relative to the project when it is inside it.
std::string shown_path(const std::string& path) {
  const std::string root = source_dir() + "/";
  return path.rfind(root, 0) == 0 ? path.substr(root.size()) : path;
}

// A file of the build (a module, a log) as messages show it: relative when the user is at the
// project's root, where the learner's commands run; absolute anywhere else (ctest, a grader's
// script).
std::string build_file_shown(const std::string& path) {
  char cwd[PATH_MAX];
  const std::string root = source_dir();
  if (::getcwd(cwd, sizeof cwd) && real_path(cwd) == real_path(root) &&
      path.rfind(root + "/", 0) == 0)
    return path.substr(root.size() + 1);
  return path;
}

std::string stem_of(const puzzle_spec& spec) {
  std::string s = spec.stub_file.substr(spec.stub_file.find_last_of('/') + 1);
  if (s.size() > 4 && s.compare(s.size() - 4, 4, ".hpp") == 0) s.resize(s.size() - 4);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Which build compiles the stubs of a puzzles directory

struct build_tree {
  std::string dir;          // the CMake build directory
  std::string puzzles_dir;  // the stubs' directory, absolute
  std::string shown_dir;    // the stubs' directory as reports show it
  bool side = false;        // a modules-only build of another puzzles directory
};

std::string main_build() { return TILEPUZZLES_BINARY_DIR; }

// A short, stable name for a directory: its last component and a hash of its absolute path.
std::string side_build_name(const std::string& absolute) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : absolute) h = (h ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  std::string base = absolute.substr(absolute.find_last_of('/') + 1);
  for (char& c : base)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  return base + "-" + std::string(hex).substr(0, 12);
}

build_tree tree_for(const module_options& options) {
  build_tree t;
  const std::string configured = TILEPUZZLES_PUZZLES_DIR;
  t.dir = main_build();
  t.puzzles_dir = configured;
  t.shown_dir = shown_path(configured);
  if (options.puzzles_dir.empty()) return t;
  const std::string absolute = real_path(options.puzzles_dir);
  t.shown_dir = strip_trailing_slashes(options.puzzles_dir);
  if (absolute == real_path(configured)) return t;
  t.puzzles_dir = absolute;
  t.side = true;
  t.dir = main_build() + "/puzzle-dirs/" + side_build_name(absolute);
  return t;
}

struct module_paths {
  std::string target;       // the CMake target
  std::string file;         // the module (.so)
  std::string prefix;       // .log, .status, .deps and .source next to it
  std::string kernel_file;  // the stub or solution, absolute
  std::string shown_kernel_file;
  std::string build_dir;
};

module_paths paths_of(const module_ref& ref, const module_options& options) {
  const build_tree t = tree_for(options);
  const std::string stem = stem_of(*ref.spec);
  const bool stub = ref.which == impl::stub;
  const bool gpu = ref.backend == backend::gpu;
  module_paths p;
  // Solutions are always built by the main build, from the project's solutions/.
  p.build_dir = stub ? t.dir : main_build();
  p.target = "tilepuzzles_" + stem + "_" + impl_name(ref.which) + (gpu ? "_gpu" : "");
  p.prefix = p.build_dir + "/modules/" + stem + "." + impl_name(ref.which) + (gpu ? ".gpu" : "");
  p.file = p.prefix + ".so";
  if (stub) {
    p.kernel_file = t.puzzles_dir + "/" + stem + ".hpp";
    p.shown_kernel_file = t.shown_dir + "/" + stem + ".hpp";
  } else {
    p.kernel_file = source_dir() + "/" + ref.spec->solution_file;
    p.shown_kernel_file = ref.spec->solution_file;
  }
  return p;
}

// ---------------------------------------------------------------------------------------------
// Is a module built from the current source?

// The files a module's compile read, from the compiler's depfile ("target: dep dep \" lines).
std::vector<std::string> dependencies(const module_paths& p, std::string* object) {
  std::vector<std::string> deps;
  const auto text = read_file(p.prefix + ".deps");
  if (!text) return deps;
  std::string token;
  bool target_done = false;
  auto flush = [&] {
    if (token.empty()) return;
    if (!target_done) {
      // "object: deps" (g++) or "object : deps" (nvcc)
      if (token == ":") {
        target_done = true;
      } else {
        const bool last = token.back() == ':';
        if (last) token.pop_back();
        if (object) *object = token.front() == '/' ? token : p.build_dir + "/" + token;
        target_done = last;
      }
    } else if (token != "\\") {
      deps.push_back(token.front() == '/' ? token : p.build_dir + "/" + token);
    }
    token.clear();
  };
  for (std::size_t i = 0; i < text->size(); ++i) {
    const char c = (*text)[i];
    if (c == '\\' && i + 1 < text->size() && (*text)[i + 1] == ' ') {
      token += ' ';
      ++i;
    } else if (c == '\\' && i + 1 < text->size() && (*text)[i + 1] == '\n') {
      flush();
      ++i;
    } else if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      flush();
    } else {
      token += c;
    }
  }
  flush();
  return deps;
}

struct freshness {
  bool fresh = false;
  bool by_content_only = false;  // the times say fresh; only the kernel file's content differs
  std::string why;  // e.g. "puzzles/x.hpp changed since it was last compiled"
};

// The snapshot of the kernel file the last successful compile read (cmake/compile-logged.sh
// keeps it), compared by content: a file copied in with an old time (cp -p) still counts as
// changed.
bool kernel_differs_from_snapshot(const module_paths& p) {
  const auto snapshot = read_file(p.prefix + ".source");
  if (!snapshot) return false;
  const auto current = read_file(p.kernel_file);
  return !current || *current != *snapshot;
}

freshness check_freshness(const module_paths& p) {
  const file_time module = stat_file(p.file);
  if (!stat_file(p.kernel_file).exists) return {false, false, p.shown_kernel_file + " does not exist"};
  if (!module.exists)
    return {false, false, p.shown_kernel_file + " has not been compiled (there is no " +
                              build_file_shown(p.file) + ")"};
  std::vector<std::string> files = dependencies(p, nullptr);
  files.insert(files.begin(), p.kernel_file);
  // A simulator module reads the headers of tl, the simulator and the launcher through the main
  // build's precompiled header, which its depfile does not list: a module older than it was built
  // before those headers last changed.
  for (const char* suffix : {".gch", ".pch"}) {  // g++'s, clang's
    const std::string pch =
        main_build() + "/CMakeFiles/tilepuzzles_module_pch.dir/cmake_pch.hxx" + suffix;
    if (!p.file.ends_with(".gpu.so") && stat_file(pch).exists) files.push_back(pch);
  }
  for (const std::string& f : files) {
    const file_time t = stat_file(f);
    const std::string shown = f == p.kernel_file ? p.shown_kernel_file : shown_path(f);
    if (!t.exists) return {false, false, shown + " was removed since " + p.shown_kernel_file +
                                             " was last compiled"};
    if (newer(t.mtime, module.mtime))
      return {false, false, shown + " changed since it was last compiled"};
  }
  if (kernel_differs_from_snapshot(p))
    return {false, true, p.shown_kernel_file + " changed since it was last compiled"};
  return {true, false, {}};
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

// Whether a module's bytes are the ones its build made: the build records their SHA-256 beside
// the module (cmake/record-module-hash.cmake runs after each link). Nothing when they are; else
// why not. `bytes`, when given, are the module's bytes already read (and checked as they are).
std::optional<std::string> integrity_problem(const module_paths& p,
                                             const std::string* bytes = nullptr) {
  const auto recorded = read_file(p.prefix + ".sha256");
  if (!recorded)
    return build_file_shown(p.file) + " has no record of what its build made (" +
           build_file_shown(p.prefix + ".sha256") + " is missing)";
  const auto actual = bytes ? std::optional<std::string>(sha256_hex(*bytes)) : sha256_of_file(p.file);
  if (!actual) return build_file_shown(p.file) + " cannot be read";
  if (*actual != trimmed(*recorded))
    return build_file_shown(p.file) + " is not what its build made (its SHA-256 differs from the "
           "one recorded when it was built: it was replaced or changed since)";
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// The build

// An advisory lock on the build directory: exclusive while building, shared while loading.
class build_lock {
 public:
  build_lock(const std::string& build_dir, bool exclusive) {
    const std::string dir = build_dir + "/modules";
    ::mkdir(dir.c_str(), 0777);
    fd_ = ::open((dir + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ < 0) return;
    while (::flock(fd_, exclusive ? LOCK_EX : LOCK_SH) != 0 && errno == EINTR) {
    }
  }
  ~build_lock() {
    if (fd_ >= 0) ::close(fd_);
  }
  build_lock(const build_lock&) = delete;
  build_lock& operator=(const build_lock&) = delete;

 private:
  int fd_ = -1;
};

// Runs a command with its output (stdout and stderr) appended to `log`; its exit status, or -1.
// `environment` is added to the command's (NAME=VALUE); the TILEPUZZLES_SANDBOX variables it may
// set are removed first, so that only the caller decides whether compiles are sandboxed.
int run_logged(const std::vector<std::string>& args, const std::string& log,
               const std::vector<std::string>& environment = {}) {
  std::vector<std::string> env_strings;
  // Without PWD, so that CMake takes the working directory as it is: run from a symbolic link's
  // path into the project (Gradescope's source/, say) whose target holds the build tree, CMake 3.25
  // mapped the build tree's paths through the link twice and its compiler check failed.
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "TILEPUZZLES_SANDBOX", 19) != 0 &&
        std::strncmp(*e, "TILEPUZZLES_MODULE_UNIT_CORES=", 30) != 0 &&
        std::strncmp(*e, "PWD=", 4) != 0)
      env_strings.push_back(*e);
  env_strings.insert(env_strings.end(), environment.begin(), environment.end());
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) return -1;
  if (child == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0666);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvpe(argv[0], argv.data(), envp.data());
    std::fprintf(stderr, "could not run %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> words;
  std::istringstream in(s);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

bool cuda_build() {
#ifdef TILEPUZZLES_CUDA_BUILD
  return true;
#else
  return false;
#endif
}

// Configures the modules-only build of another puzzles directory, once.
std::optional<std::string> configure_side_build(const build_tree& t) {
  if (stat_file(t.dir + "/CMakeCache.txt").exists) return std::nullopt;
  ::mkdir((main_build() + "/puzzle-dirs").c_str(), 0777);
  ::mkdir(t.dir.c_str(), 0777);
  ::mkdir((t.dir + "/modules").c_str(), 0777);
  const std::string log = t.dir + "/configure.log";
  std::remove(log.c_str());
  std::vector<std::string> args = {TILEPUZZLES_CMAKE_COMMAND,
                                   "-S",
                                   source_dir(),
                                   "-B",
                                   t.dir,
                                   "-G",
                                   TILEPUZZLES_GENERATOR,
                                   "-DCMAKE_BUILD_TYPE=" TILEPUZZLES_BUILD_TYPE,
                                   "-DCMAKE_CXX_COMPILER=" TILEPUZZLES_CXX_COMPILER,
                                   // -stdlib=libc++, say: a module must be built as the
                                   // main build's precompiled header and runtime were.
                                   "-DCMAKE_CXX_FLAGS=" TILEPUZZLES_CXX_FLAGS,
                                   "-DTILEPUZZLES_STUB_MODULE_UNITS=" TILEPUZZLES_STUB_MODULE_UNITS,
                                   "-DTILEPUZZLES_MODULES_ONLY=ON",
                                   "-DTILEPUZZLES_RUNTIME=" TILEPUZZLES_RUNTIME,
                                   "-DTILEPUZZLES_PUZZLES_DIR=" + t.puzzles_dir,
                                   std::string("-DTILEPUZZLES_CUDA=") +
                                       (cuda_build() ? "ON" : "OFF")};
#ifdef TILEPUZZLES_CUDA_ARCHITECTURES
  args.push_back("-DCMAKE_CUDA_ARCHITECTURES=" TILEPUZZLES_CUDA_ARCHITECTURES);
#endif
  if (run_logged(args, log) != 0) {
    // Leave no half-configured tree behind: the next check configures again.
    std::remove((t.dir + "/CMakeCache.txt").c_str());
    return "could not configure the build of " + t.shown_dir + " (see " + log + ")";
  }
  return std::nullopt;
}

diagnostic module_problem(std::string message, std::string source = {}) {
  diagnostic d;
  d.kind = kind::compile_error;
  d.message = "compile-error: " + std::move(message);
  d.source = std::move(source);
  return d;
}

std::string last_lines(const std::string& text, int count) {
  std::size_t at = text.size();
  while (at > 0 && text[at - 1] == '\n') --at;
  for (int n = 0; n < count && at > 0; ++n) {
    const std::size_t nl = text.rfind('\n', at - 1);
    if (nl == std::string::npos) return text.substr(0, text.find_last_not_of('\n') + 1);
    at = nl;
  }
  std::string tail = text.substr(at + 1);
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  return tail;
}

// What takes the place of a module that did not build.
diagnostic build_failure(const module_ref& ref, const module_paths& p,
                         const std::string& build_log) {
  const auto status = read_file(p.prefix + ".status");
  const auto log = read_file(p.prefix + ".log");
  const bool compile_failed = status && std::atoi(status->c_str()) != 0 && log;
  if (compile_failed) {
    compile_log_context context;
    context.kernel_file = p.kernel_file;
    context.shown_kernel_file = p.shown_kernel_file;
    context.learner_dir = p.kernel_file.substr(0, p.kernel_file.find_last_of('/'));
    context.shown_learner_dir = p.shown_kernel_file.substr(0, p.shown_kernel_file.find_last_of('/'));
    context.source_dir = source_dir();
    context.log_file = build_file_shown(p.prefix + ".log");
    context.gpu = ref.backend == backend::gpu;
    const compile_report report = summarize_compile_log(*log, context);
    return module_problem(report.message, report.source);
  }
  const std::string tail = last_lines(read_file(build_log).value_or(""), 12);
  return module_problem(p.shown_kernel_file + " was not built: the build of its module (" +
                        p.target + ") failed before or after compiling it. The build's last "
                        "lines:\n" + tail + "\n  The whole build's output: " +
                        build_file_shown(build_log));
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::string shown_kernel_file(const puzzle_spec& spec, impl which, const module_options& options) {
  module_ref ref{&spec, which, backend::simulator};
  return paths_of(ref, options).shown_kernel_file;
}

module_files files_of(const module_ref& ref, const module_options& options) {
  const module_paths p = paths_of(ref, options);
  return {p.kernel_file, p.prefix};
}

std::string stubs_dir(const module_options& options) { return tree_for(options).puzzles_dir; }

bool gpu_enabled(const puzzle_spec& spec) {
  for (const puzzle_entry& e : puzzle_entries)
    if (e.id == spec.id) return e.gpu;
  return false;
}

std::optional<std::string> check_puzzles_dir(const std::string& dir) {
  if (!is_directory(dir)) return "--puzzles " + dir + ": no such directory";
  return std::nullopt;
}

std::vector<std::string> module_dependencies(const module_ref& ref, const module_options& options) {
  return dependencies(paths_of(ref, options), nullptr);
}

std::vector<std::optional<diagnostic>> build_modules(const std::vector<module_ref>& refs,
                                                     const module_options& options,
                                                     std::vector<std::string>* notes) {
  std::vector<std::optional<diagnostic>> result(refs.size());
  if (notes) notes->assign(refs.size(), std::string());
  if (refs.empty()) return result;
  const build_tree tree = tree_for(options);
  std::vector<module_paths> paths;
  for (const auto& r : refs) paths.push_back(paths_of(r, options));

  if (!options.build) {
    for (std::size_t i = 0; i < refs.size(); ++i) {
      const freshness f = check_freshness(paths[i]);
      if (!f.fresh)
        result[i] = module_problem("not checked: " + f.why +
                                   ", and --no-build forbids compiling it. Run the check without "
                                   "--no-build to compile the current source.");
      else if (const auto changed = integrity_problem(paths[i]))
        result[i] = module_problem("not checked: " + *changed +
                                   ", and --no-build forbids building it again. Run the check "
                                   "without --no-build to rebuild it.");
    }
    return result;
  }

  // Every module already built from the current source, and as its build made it: nothing to
  // build, and no lock to wait for (a build of the main tree waits for every check that reads
  // it). load_module checks each again under its lock.
  if (std::all_of(paths.begin(), paths.end(), [](const module_paths& p) {
        return check_freshness(p).fresh && !integrity_problem(p);
      }))
    return result;

  bool any_main = false, any_side = false;
  for (const auto& p : paths) (p.build_dir == main_build() ? any_main : any_side) = true;
  // A build of the main tree is exclusive. A student copy's build is a tree of its own that only
  // reads the main build (its runtime), so copies build side by side (`grade -j`), each holding
  // its own tree's lock and the main tree's shared.
  build_lock main_lock(main_build(), any_main);
  std::optional<build_lock> side_lock;
  if (any_side) {
    ::mkdir((main_build() + "/puzzle-dirs").c_str(), 0777);
    ::mkdir(tree.dir.c_str(), 0777);
    side_lock.emplace(tree.dir, true);
  }
  std::optional<std::string> setup_problem;
  if (any_side) setup_problem = configure_side_build(tree);

  // Group the targets by build directory (a --puzzles build and the main build for solutions).
  std::map<std::string, std::vector<std::size_t>> by_dir;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (setup_problem && paths[i].build_dir != main_build()) {
      result[i] = module_problem(*setup_problem);
      continue;
    }
    if (!stat_file(paths[i].kernel_file).exists) {
      result[i] = module_problem(paths[i].shown_kernel_file + " does not exist: there is no " +
                                 impl_name(refs[i].which) + " to check for puzzle " +
                                 std::to_string(refs[i].spec->number) + " (" + refs[i].spec->id +
                                 ").");
      continue;
    }
    // A kernel file whose content differs from what its module was compiled from, but whose
    // time does not say so (copied with cp -p, say): make the build recompile it.
    const freshness f = check_freshness(paths[i]);
    // A module whose bytes are not what its build made (replaced behind the checker's back) is
    // built again from its object's source: the object goes too, since whoever replaced the
    // module could have replaced it as well.
    std::optional<std::string> changed;
    if (f.fresh) changed = integrity_problem(paths[i]);
    if (f.by_content_only || changed) {
      std::string object;
      dependencies(paths[i], &object);
      if (!object.empty()) std::remove(object.c_str());
      std::remove(paths[i].file.c_str());
    }
    if (changed && notes)
      (*notes)[i] = *changed + ": rebuilt from " + paths[i].shown_kernel_file + ".";
    by_dir[paths[i].build_dir].push_back(i);
  }

  for (const auto& [dir, members] : by_dir) {
    const std::string log = dir + "/modules/build.log";
    std::remove(log.c_str());
    std::vector<std::string> args = {TILEPUZZLES_CMAKE_COMMAND, "--build", dir, "--target"};
    for (std::size_t i : members) args.push_back(paths[i].target);
    const long cores = options.build_jobs > 0 ? options.build_jobs
                                              : std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
    const long jobs = std::min<long>(cores, static_cast<long>(members.size()));
    args.push_back("--parallel");
    args.push_back(std::to_string(jobs));
    args.push_back("--");
    for (const auto& w : split_words(TILEPUZZLES_KEEP_GOING)) args.push_back(w);
    // Only the stubs' compiles are sandboxed: a build of the main tree may compile solutions too,
    // but they compile through a launcher that never asks for the sandbox.
    auto environment = sandbox::compile_environment(options.sandbox, sandbox::limits{options.memory_mb});
    // The cores each of the build's jobs may use: a stub's simulator module compiles as that many
    // units at once at most (cmake/compile-logged.sh --shards), so the learner's one module takes
    // both cores of a 2-core machine, and a first check's twenty modules one core each.
    environment.push_back("TILEPUZZLES_MODULE_UNIT_CORES=" + std::to_string(std::max(1L, cores / jobs)));
    run_logged(args, log, environment);
    for (std::size_t i : members) {
      if (!check_freshness(paths[i]).fresh) {
        result[i] = build_failure(refs[i], paths[i], log);
      } else if (const auto changed = integrity_problem(paths[i])) {
        result[i] = module_problem("not checked: " + *changed + ", and building it again did not "
                                   "record a new one. Rebuild the project (cmake --build build) "
                                   "and check again.");
      }
    }
  }
  return result;
}

int build_target(const std::string& target, const std::string& log) {
  build_lock lock(main_build(), true);
  std::remove(log.c_str());
  const long cores = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
  return run_logged({TILEPUZZLES_CMAKE_COMMAND, "--build", main_build(), "--target", target,
                     "--parallel", std::to_string(cores)},
                    log);
}

namespace {

// The launchers of a loaded module, once its description matches the spec.
std::variant<loaded_module, diagnostic> launchers_of(void* handle, const module_ref& ref,
                                                     const std::string& shown_file) {
  using entry_point = const module_info* (*)();
  auto entry = reinterpret_cast<entry_point>(::dlsym(handle, module_entry_point));
  const module_info* info = entry ? entry() : nullptr;
  const std::string rebuild = " Rebuild the checker (cmake --build build) and check again.";
  if (!info || info->abi_version != module_abi_version)
    return module_problem("the module " + shown_file +
                          " was built for another version of the checker." + rebuild);
  const bool gpu = ref.backend == backend::gpu;
  if (info->puzzle_id != ref.spec->id || std::string(info->impl) != impl_name(ref.which) ||
      std::string(info->backend) != (gpu ? "gpu" : "simulator") ||
      info->kernel_count != static_cast<int>(ref.spec->kernels.size()))
    return module_problem("the module " + shown_file + " does not match puzzle " +
                          ref.spec->id + " as this checker knows it." + rebuild);
  loaded_module out;
  for (int k = 0; k < info->kernel_count; ++k) {
    const module_kernel& mk = info->kernels[k];
    const std::vector<int> blocks(mk.blocks, mk.blocks + mk.block_count);
    if (blocks != ref.spec->kernels[k].blocks ||
        mk.dtype != static_cast<int>(ref.spec->kernels[k].dtype))
      return module_problem("the module " + shown_file +
                            " was built with other block sizes than this checker expects." +
                            rebuild);
    out.launchers.push_back(mk.launch);
  }
  return out;
}

}  // namespace

std::variant<loaded_module, diagnostic> load_module(const module_ref& ref,
                                                    const module_options& options) {
  const module_paths p = paths_of(ref, options);
  // Loaded modules stay loaded; a module rebuilt since is loaded again under another spelling of
  // its path (the dynamic loader knows a loaded library by its name).
  struct loaded {
    void* handle;
    dev_t dev;
    ino_t ino;
  };
  static std::mutex mutex;
  static std::map<std::string, loaded> cache;
  static int respellings = 0;

  build_lock lock(p.build_dir, false);
  const freshness f = check_freshness(p);
  if (!f.fresh)
    return module_problem("not checked: " + f.why + " (" + build_file_shown(p.file) +
                          " is older). Check it again to compile the current source.");

  const file_time now = stat_file(p.file);
  void* handle = nullptr;
  {
    std::lock_guard<std::mutex> guard(mutex);
    auto it = cache.find(p.file);
    if (it != cache.end() && it->second.dev == now.dev && it->second.ino == now.ino) {
      handle = it->second.handle;
    } else {
      if (const auto changed = integrity_problem(p))
        return module_problem("not checked: " + *changed + ". Check it again to rebuild it.");
      std::string name = p.file;
      if (it != cache.end()) {
        const std::size_t slash = name.find_last_of('/');
        std::string dots;
        for (int k = 0; k <= respellings; ++k) dots += "./";
        ++respellings;
        name = name.substr(0, slash + 1) + dots + name.substr(slash + 1);
      }
      handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle) {
        const char* error = ::dlerror();
        return module_problem("the module of " + p.shown_kernel_file + " (" + build_file_shown(p.file) +
                              ") could not be loaded: " + (error ? error : "unknown error") +
                              ". Rebuild the project (cmake --build build) and check again.");
      }
      cache[p.file] = {handle, now.dev, now.ino};
    }
  }
  return launchers_of(handle, ref, build_file_shown(p.file));
}

std::variant<std::string, diagnostic> verified_module_bytes(const module_ref& ref,
                                                            const module_options& options) {
  const module_paths p = paths_of(ref, options);
  build_lock lock(p.build_dir, false);
  const freshness f = check_freshness(p);
  if (!f.fresh)
    return module_problem("not checked: " + f.why + " (" + build_file_shown(p.file) +
                          " is older). Check it again to compile the current source.");
  const auto bytes = read_file(p.file);
  if (!bytes) return module_problem(build_file_shown(p.file) + " cannot be read. Check it again.");
  if (const auto changed = integrity_problem(p, &*bytes))
    return module_problem("not checked: " + *changed + ". Check it again to rebuild it.");
  return *bytes;
}

std::variant<loaded_module, diagnostic> load_module_from_fd(const module_ref& ref,
                                                            const module_options& options,
                                                            int fd) {
  const module_paths p = paths_of(ref, options);
  const std::string name = "/proc/self/fd/" + std::to_string(fd);
  void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* error = ::dlerror();
    return module_problem("the module of " + p.shown_kernel_file + " (" + build_file_shown(p.file) +
                          ") could not be loaded in the sandbox: " +
                          (error ? error : "unknown error") + ".");
  }
  return launchers_of(handle, ref, build_file_shown(p.file));
}

}  // namespace tp
