// The sandbox of a stub's compile and run (checker/sandbox.hpp, checker/syscall_filter.hpp): a
// hostile stub fails its own puzzle with a diagnostic that says what it tried, nothing outside
// the sandbox's scratch changes, no process is left, and the puzzle checked after it is graded
// normally; beside each hostile stub, its correct twin (the same kernel without the attempt) is
// solved. All hostile stubs live in one student copy and all twins in another, so their modules
// are built once for every test here.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "checker/modules.hpp"
#include "checker/registry.hpp"
#include "checker/run_channel.hpp"
#include "checker/sandbox.hpp"
#include "checker/sha256.hpp"
#include "cli_support.hpp"
#include "student_copy.hpp"

using namespace cli_support;
using namespace student_copy;

namespace {

std::string work_dir() { return TILEPUZZLES_TEST_WORK_DIR; }

// Where the hostile stubs try to write: a directory outside the student's copy.
std::string outside_dir() { return work_dir() + "/sandbox-outside"; }

// A file of the grader's, outside the project and the student's copy, that a stub includes.
std::string grader_secret_file() { return work_dir() + "/sandbox-grader-secret.hpp"; }
constexpr const char* grader_secret = "GRADER-SECRET-7f3a";

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// The solved stub of a puzzle with `code` run first in its kernel, `includes` before tile/tl.hpp.
std::string hostile_stub(const tp::puzzle_spec& spec, const std::string& includes,
                         const std::string& code) {
  std::string text = solved_stub(spec);
  const std::size_t include = text.find("#include \"tile/tl.hpp\"");
  REQUIRE(include != std::string::npos);
  text.insert(include, includes + "\n");
  const std::size_t body = text.find(" const {\n", text.find("TL_KERNEL void operator()("));
  REQUIRE(body != std::string::npos);
  text.insert(body + 9, "    " + code + "\n");
  return text;
}

// A directory for a student copy, its stubs written by the caller (each once, so that a rerun
// compiles nothing).
std::string copy_dir(const std::string& name) {
  const std::string dir = work_dir() + "/" + name;
  ::mkdir(work_dir().c_str(), 0777);
  ::mkdir(dir.c_str(), 0777);
  return dir;
}

// The prefix of a student copy's stub module files (.so, .log, ...).
std::string module_prefix(const std::string& dir, const char* id) {
  tp::module_options options;
  options.puzzles_dir = dir;
  return tp::files_of({&puzzle(id), tp::impl::stub, tp::backend::simulator}, options).prefix;
}
std::string module_of(const std::string& dir, const char* id) { return module_prefix(dir, id) + ".so"; }

struct copies {
  std::string hostile;  // one hostile stub per puzzle below, the other puzzles solved
  std::string twins;    // every puzzle solved, long-softmax-2loop through a helper header
};

// The puzzle each test checks after its hostile one: solved in the hostile copy.
constexpr const char* next_puzzle = "conv2d";
// The puzzle whose module the module-replacing stub attacks: the shipped stub, "not solved" by
// its own module, "solved" if the attack had put the reference solution's module in its place.
constexpr const char* victim = "outer-mul-relu-backward";

const copies& class_copies() {
  static const copies c = [] {
    copies made;
    made.hostile = copy_dir("sandbox-hostile");
    made.twins = copy_dir("sandbox-twins");
    ::mkdir(outside_dir().c_str(), 0777);
    write_text(grader_secret_file(), std::string("#error ") + grader_secret + "\n");
    const std::string victim_module = module_of(made.hostile, victim);
    const std::string binary = TILEPUZZLES_BINARY;
    const std::string solution_module = binary.substr(0, binary.find_last_of('/')) +
                                        "/modules/outer_mul_relu_backward.solution.so";
    const std::map<std::string, std::pair<std::string, std::string>> attempts = {
        {"constant-add",
         {"#include <cstdio>",
          "if (FILE* f = std::fopen(\"" + outside_dir() + "/written\", \"w\")) std::fclose(f);"}},
        {"constant-add-block",
         {"#include <cstdio>", "if (FILE* f = std::fopen(\"" + std::string(TILEPUZZLES_SOURCE_DIR) +
                                   "/solutions/matmul.hpp\", \"r\")) std::fclose(f);"}},
        {"vector-add",
         {"#include <cstdlib>", "std::system(\"touch " + outside_dir() + "/shell\");"}},
        {"outer-add",
         {"#include <arpa/inet.h>\n#include <netinet/in.h>\n#include <sys/socket.h>",
          "{ int s = ::socket(AF_INET, SOCK_STREAM, 0); sockaddr_in a{}; a.sin_family = AF_INET; "
          "a.sin_port = htons(80); a.sin_addr.s_addr = htonl(0x01010101); "
          "::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a); }"}},
        {"outer-add-block",
         {"#include <unistd.h>", "if (::fork() == 0) { ::sleep(60); ::_exit(0); }"}},
        {"outer-mul-relu",
         {"#include <cstdio>",
          "if (FILE* to = std::fopen(\"" + victim_module + "\", \"wb\")) { FILE* from = "
          "std::fopen(\"" + solution_module + "\", \"rb\"); int c; while (from && (c = "
          "std::fgetc(from)) != EOF) std::fputc(c, to); std::fclose(to); }"}},
        {"long-sum", {"#include <signal.h>\n#include <unistd.h>", "::kill(::getppid(), SIGKILL);"}},
        {"long-softmax-3loop",
         {"#include <cstring>\n#include <vector>",
          // The empty asm says the bytes are read: clang would otherwise drop the whole allocation.
          "{ std::vector<char> big(std::size_t(2) << 30); std::memset(big.data(), 1, big.size()); "
          "asm volatile(\"\" : : \"r\"(big.data()) : \"memory\"); }"}},
        {"long-softmax-2loop", {"#include \"" + grader_secret_file() + "\"", ""}},
        // A report of its own, `solved`, written with the checker's own encoder where the
        // check's report goes (descriptor 5), then the end of the check's process.
        {"flash-attention-simple",
         {"#include <unistd.h>\n#include \"checker/run_channel.hpp\"",
          "{ tp::puzzle_report forged; forged.status = tp::status::solved; const std::string m = "
          "tp::channel::encode_report(forged); (void)!::write(5, m.data(), m.size()); ::_exit(0); }"}},
        // Processes, as many as it can start (200 at most, each waiting: bounded even where
        // nothing stops them, so that the test itself cannot take a machine down).
        {"matmul",
         {"#include <unistd.h>",
          "for (int i = 0; i < 200; ++i) { const pid_t p = ::fork(); if (p == 0) { ::sleep(30); "
          "::_exit(0); } if (p < 0) break; }"}},
        // Before any kernel runs: a global object's constructor, run as the module loads.
        {"softmax-fused",
         {"#include <cstdio>\nstruct at_load { at_load() { if (FILE* f = std::fopen(\"" +
              outside_dir() + "/at-load\", \"w\")) std::fclose(f); } };\ninline at_load "
              "written_at_load;",
          ""}},
    };
    for (const tp::puzzle_spec* p : tp::all_puzzles()) {
      const auto attempt = attempts.find(p->id);
      write_text(made.hostile + "/" + stub_name(*p),
                 p->id == victim            ? empty_stub(*p)
                 : attempt == attempts.end() ? solved_stub(*p)
                                             : hostile_stub(*p, attempt->second.first,
                                                            attempt->second.second));
      if (p->id != "long-softmax-2loop") write_text(made.twins + "/" + stub_name(*p), solved_stub(*p));
    }
    // The twin of the include outside: a header of the student's own, in their directory.
    write_text(made.twins + "/softmax_helper.hpp", "#pragma once\n#define SOFTMAX_HELPER 1\n");
    write_text(made.twins + "/long_softmax_2loop.hpp",
               hostile_stub(puzzle("long-softmax-2loop"), "#include \"softmax_helper.hpp\"",
                            "static_assert(SOFTMAX_HELPER == 1);"));
    return made;
  }();
  return c;
}

// The report of one puzzle in a `check --json` array.
json report_of(const json& reports, const tp::puzzle_spec& p) {
  for (const json& r : reports.items)
    if (r["id"].string == p.id) return r;
  FAIL("no report for " << p.id);
  return {};
}

// Processes still running whose command line names `text` (a student copy's path).
std::vector<std::string> processes_naming(const std::string& text) {
  std::vector<std::string> found;
  DIR* proc = ::opendir("/proc");
  if (!proc) return found;
  while (dirent* e = ::readdir(proc)) {
    const std::string pid = e->d_name;
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in("/proc/" + pid + "/cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    if (cmdline.find(text) != std::string::npos && std::to_string(::getpid()) != pid)
      found.push_back(pid + ": " + cmdline);
  }
  ::closedir(proc);
  return found;
}

// The files of a directory and their hashes: what "nothing changed" compares.
std::map<std::string, std::string> contents_of(const std::string& dir) {
  std::map<std::string, std::string> files;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      files[name] = tp::sha256_of_file(dir + "/" + name).value_or("(unreadable)");
    }
    ::closedir(d);
  }
  return files;
}

struct hostile_outcome {
  json hostile;  // the hostile puzzle's report
  json next;     // the report of the puzzle checked after it, in the same check
  json twin;     // the twin's report
};

// Checks the hostile puzzle and the next one in one run, then the twin; checks what every
// hostile stub must leave as it was.
hostile_outcome check_hostile(const char* id, const std::string& extra = "") {
  const auto why = tp::sandbox::unavailable();
  INFO("these tests need the sandbox: " << why.value_or(""));
  REQUIRE_FALSE(why.has_value());
  const copies& c = class_copies();
  const auto student_before = contents_of(c.hostile);
  const auto r = run_cli("check " + std::string(id) + " " + next_puzzle + " --json --puzzles " +
                         c.hostile + extra);
  CHECK(r.exit_code == 1);
  const json reports = parse_json(r.out);
  hostile_outcome out{report_of(reports, puzzle(id)), report_of(reports, puzzle(next_puzzle)), {}};
  CHECK(out.next["status"].string == "solved");
  // Nothing outside the sandbox's scratch changed, nothing of the check is left running.
  CHECK(contents_of(outside_dir()).empty());
  CHECK(contents_of(c.hostile) == student_before);
  // Other tests may be checking other puzzles of this copy at the same time: the processes of
  // this one's check name its puzzle.
  for (const std::string& left : processes_naming(c.hostile))
    CHECK_THAT(left, !Catch::Contains("--puzzle " + std::string(id) + " "));
  const auto twin = run_cli("check " + std::string(id) + " --json --puzzles " + c.twins);
  CHECK(twin.exit_code == 0);
  out.twin = report_of(parse_json(twin.out), puzzle(id));
  CHECK(out.twin["status"].string == "solved");
  return out;
}

std::string kind_of(const json& report) {
  return report["diagnostics"].items.empty() ? "" : report["diagnostics"].items[0]["kind"].string;
}
std::string message_of(const json& report) {
  return report["diagnostics"].items.empty() ? "" : report["diagnostics"].items[0]["message"].string;
}

}  // namespace

TEST_CASE("A stub that writes a file outside its directory fails its puzzle, and nothing is written",
          "[sandbox]") {
  const hostile_outcome o = check_hostile("constant-add");
  CHECK(kind_of(o.hostile) == "sandbox");
  CHECK_THAT(message_of(o.hostile),
             Catch::Contains("tried to open " + outside_dir() + "/written for writing (openat)"));
  CHECK_THAT(message_of(o.hostile), Catch::Contains("in program (0, 0, 0)"));
  CHECK_FALSE(exists(outside_dir() + "/written"));
}

TEST_CASE("A stub that writes a file as its module loads fails its puzzle, and nothing is written",
          "[sandbox]") {
  const hostile_outcome o = check_hostile("softmax-fused");
  CHECK(kind_of(o.hostile) == "sandbox");
  CHECK_THAT(message_of(o.hostile),
             Catch::Contains("tried to open " + outside_dir() + "/at-load for writing (openat), "
                             "while its module was loading"));
  CHECK_FALSE(exists(outside_dir() + "/at-load"));
}

TEST_CASE("A stub that reads the solutions at run time fails its puzzle", "[sandbox]") {
  const hostile_outcome o = check_hostile("constant-add-block");
  CHECK(kind_of(o.hostile) == "sandbox");
  CHECK_THAT(message_of(o.hostile),
             Catch::Contains("tried to open " + std::string(TILEPUZZLES_SOURCE_DIR) +
                             "/solutions/matmul.hpp for reading"));
}

TEST_CASE("A stub that runs a shell command fails its puzzle, and the command never runs",
          "[sandbox]") {
  const hostile_outcome o = check_hostile("vector-add");
  CHECK(kind_of(o.hostile) == "sandbox");
  CHECK_THAT(message_of(o.hostile), Catch::Contains("std::system"));
  CHECK_FALSE(exists(outside_dir() + "/shell"));
}

TEST_CASE("A stub that opens a network connection fails its puzzle", "[sandbox]") {
  const hostile_outcome o = check_hostile("outer-add");
  CHECK(kind_of(o.hostile) == "sandbox");
  CHECK_THAT(message_of(o.hostile), Catch::Contains("tried to open a network connection (socket)"));
}

TEST_CASE("A stub that starts a process to leave running fails its puzzle, and none is left",
          "[sandbox]") {
  const hostile_outcome o = check_hostile("outer-add-block");
  CHECK(kind_of(o.hostile) == "sandbox");
  CHECK_THAT(message_of(o.hostile), Catch::Contains("tried to start a process"));
  // check_hostile has looked for processes naming the copy; a forked runner would name it.
}

TEST_CASE("A stub that replaces another puzzle's module fails its puzzle, and that puzzle is graded "
          "by its own module",
          "[sandbox]") {
  const std::string victim_module = module_of(class_copies().hostile, victim);
  const auto before = tp::sha256_of_file(victim_module);
  const hostile_outcome o = check_hostile("outer-mul-relu");
  CHECK(kind_of(o.hostile) == "sandbox");
  CHECK_THAT(message_of(o.hostile), Catch::Contains("tried to open " + victim_module + " for writing"));
  if (before) CHECK(tp::sha256_of_file(victim_module) == before);
  const auto r = run_cli("check " + std::string(victim) + " --json --puzzles " + class_copies().hostile);
  CHECK(report_of(parse_json(r.out), puzzle(victim))["status"].string == "not-solved");
}

TEST_CASE("A stub that forges its own solved report fails its puzzle: the verdict is the "
          "checker's comparison of every run's outputs",
          "[sandbox]") {
  const hostile_outcome o = check_hostile("flash-attention-simple");
  CHECK(o.hostile["status"].string == "failed");
  CHECK(kind_of(o.hostile) == "sandbox");
  CHECK_THAT(message_of(o.hostile),
             Catch::Contains("the process that runs the kernel reported it solved, in program (0, 0, 0)"));
  CHECK_THAT(message_of(o.hostile),
             Catch::Contains("having shown the checker the outputs of 0 of the " +
                             std::to_string(tp::judged_runs(puzzle("flash-attention-simple"), {}).size()) +
                             " runs it judges"));
  CHECK_THAT(message_of(o.hostile), Catch::Contains("may not write to the checker's descriptors"));
}

TEST_CASE("A stub that starts processes without end fails its puzzle, and none is left", "[sandbox]") {
  const hostile_outcome o = check_hostile("matmul");
  CHECK(kind_of(o.hostile) == "sandbox");
  CHECK_THAT(message_of(o.hostile), Catch::Contains("tried to start a process"));
}

TEST_CASE("The sandbox's process limit holds, as root too", "[sandbox]") {
  REQUIRE_FALSE(tp::sandbox::unavailable().has_value());
  // A command of a compile's sandbox (where processes may start, unlike a check's run) that
  // starts 150 waiting processes and counts those it could start.
  const std::string marker = "31.25";  // how the waiting processes are found afterwards
  const auto r = run_cli("__sandbox-compile -- /bin/sh -c 'i=0; while [ $i -lt 150 ]; do "
                         "sleep " + marker + " & i=$((i+1)); echo $i; done'");
  int started = 0;
  for (std::size_t at = 0; at < r.out.size();) {
    const std::size_t end = r.out.find('\n', at);
    const std::string line = r.out.substr(at, end - at);
    if (!line.empty() && line.find_first_not_of("0123456789") == std::string::npos)
      started = std::stoi(line);
    at = end == std::string::npos ? r.out.size() : end + 1;
  }
  const auto how = tp::sandbox::process_limit();
  INFO("what bounds a sandbox's processes here: " << how.value_or("nothing (root, no pids cgroup)"));
  if (how) {
    CHECK(started < static_cast<int>(tp::sandbox::limits{}.processes));
    CHECK(r.exit_code != 0);
  } else {
    WARN("this machine bounds no sandbox's process count (root without a writable pids cgroup): "
         "only the PID namespace is checked");
  }
  CHECK(started > 0);
  // The PID namespace ended with the command: none of its processes is left.
  CHECK(processes_naming("sleep " + marker).empty());
}

TEST_CASE("What the sandboxed runner sends is a claim, read against the puzzle", "[sandbox]") {
  // The runner's process is the stub's too: the supervisor's decoders take nothing on trust.
  const tp::puzzle_spec& p = puzzle("vector-add");
  tp::check_options options;
  std::string problem;
  tp::puzzle_report r;
  r.status = tp::status::failed;
  tl::sim::diagnostic d;
  d.kind = "wrong-result";
  d.message = "wrong-result: ...";
  r.diagnostics.push_back(d);
  r.case_index = 2;
  r.kernel_index = 0;
  r.order = "reverse";
  r.sizes = {123456};  // not the case's: the spec's are taken
  auto payload = [](const std::string& message) { return message.substr(tp::channel::header_size); };
  SECTION("a report of the check's is read, with the case's sizes from the spec") {
    const auto got = tp::channel::decode_report(payload(tp::channel::encode_report(r)), p, options, problem);
    REQUIRE(got);
    CHECK(got->sizes == p.cases[2].sizes);
    CHECK(got->blocks == p.kernels[0].blocks);
    CHECK(got->spec == &p);
  }
  SECTION("a diagnostic of a kind the checker does not have") {
    r.diagnostics[0].kind = "solved";
    CHECK_FALSE(tp::channel::decode_report(payload(tp::channel::encode_report(r)), p, options, problem));
    CHECK_THAT(problem, Catch::Contains("stable kinds"));
  }
  SECTION("a case the puzzle does not have") {
    r.case_index = static_cast<int>(p.cases.size());
    CHECK_FALSE(tp::channel::decode_report(payload(tp::channel::encode_report(r)), p, options, problem));
  }
  SECTION("solved, with a diagnostic") {
    r.status = tp::status::solved;
    CHECK_FALSE(tp::channel::decode_report(payload(tp::channel::encode_report(r)), p, options, problem));
    CHECK_THAT(problem, Catch::Contains("disagree"));
  }
  SECTION("the report the checker read before (a status byte and three strings)") {
    CHECK_FALSE(tp::channel::decode_report(std::string(25, '\0'), p, options, problem));
  }
  SECTION("a report cut short, or with more after it") {
    const std::string whole = payload(tp::channel::encode_report(r));
    CHECK_FALSE(tp::channel::decode_report(whole.substr(0, whole.size() - 1), p, options, problem));
    CHECK_FALSE(tp::channel::decode_report(whole + "x", p, options, problem));
  }
  SECTION("outputs of another run, or of another size, than the check is at") {
    const tp::case_data data = tp::make_case(p, p.cases[0], 0, 0, tp::dtype::float32, false);
    const tp::judged_run run{0, 0, "forward", false};
    const std::string right = payload(tp::channel::encode_outputs(0, run, data.tensors));
    CHECK(tp::channel::decode_outputs(right, p, 0, run, data.tensors, problem));
    CHECK_FALSE(tp::channel::decode_outputs(right, p, 1, run, data.tensors, problem));
    CHECK_FALSE(tp::channel::decode_outputs(right, p, 0, {0, 0, "reverse", false}, data.tensors, problem));
    auto longer = data.tensors;
    for (auto& t : longer)
      if (t.output) t.values.push_back(0);
    CHECK_FALSE(tp::channel::decode_outputs(payload(tp::channel::encode_outputs(0, run, longer)), p,
                                            0, run, data.tensors, problem));
  }
  SECTION("a trace of a program outside the run's grid") {
    tp::traced_run shape;
    shape.spec = &p;
    shape.sizes = p.cases[0].sizes;
    shape.blocks = p.kernels[0].blocks;
    shape.grid = p.grid(shape.sizes, shape.blocks);
    shape.tensors = tp::make_case(p, p.cases[0], 0, 0, tp::dtype::float32, false).tensors;
    tp::traced_run run = shape;
    run.wrong.resize(run.tensors.size());
    for (std::size_t t = 0; t < run.tensors.size(); ++t)
      if (run.tensors[t].output) run.wrong[t].assign(static_cast<std::size_t>(run.tensors[t].count()), false);
    run.entries.push_back({0, 0, 0, tl::sim::traced_load});
    CHECK(tp::channel::decode_traced(payload(tp::channel::encode_traced(&run, nullptr)), shape, problem));
    run.entries.push_back({static_cast<int>(shape.program_count()), 0, 0, tl::sim::traced_load});
    CHECK_FALSE(tp::channel::decode_traced(payload(tp::channel::encode_traced(&run, nullptr)), shape, problem));
  }
}

TEST_CASE("A stub that signals the checker fails its puzzle, and the check goes on", "[sandbox]") {
  const hostile_outcome o = check_hostile("long-sum");
  CHECK(kind_of(o.hostile) == "sandbox");
  CHECK_THAT(message_of(o.hostile), Catch::Contains("tried to send signal 9 to process"));
}

TEST_CASE("A stub that touches more memory than the limit fails its puzzle with the limit",
          "[sandbox]") {
  const hostile_outcome o = check_hostile("long-softmax-3loop", " --memory-limit 1024");
  CHECK(kind_of(o.hostile) == "crash");
  CHECK_THAT(message_of(o.hostile), Catch::Contains("std::bad_alloc"));
  CHECK_THAT(message_of(o.hostile), Catch::Contains("A check may use 1024 MiB of memory"));
}

TEST_CASE("A stub that includes a file outside the project does not compile, and its report "
          "never quotes that file",
          "[sandbox]") {
  const hostile_outcome o = check_hostile("long-softmax-2loop");
  CHECK(kind_of(o.hostile) == "compile-error");
  // g++'s words, or clang's.
  CHECK_THAT(message_of(o.hostile),
             Catch::Contains(grader_secret_file() + ": No such file or directory") ||
                 Catch::Contains("'" + grader_secret_file() + "' file not found"));
  CHECK_THAT(message_of(o.hostile), Catch::Contains("include nothing else"));
  CHECK_THAT(message_of(o.hostile), !Catch::Contains(grader_secret));
  CHECK_THAT(read_text(module_prefix(class_copies().hostile, "long-softmax-2loop") + ".log"),
             !Catch::Contains(grader_secret));
}

TEST_CASE("show runs a stub in the sandbox: what it tries is stopped and said, its twin drawn",
          "[sandbox][show]") {
  const copies& c = class_copies();
  const auto r = run_cli("show constant-add --case 2 --puzzles " + c.hostile);
  CHECK_THAT(r.out, Catch::Contains("sandbox: the kernel tried to open " + outside_dir() +
                                    "/written for writing (openat)"));
  CHECK_FALSE(exists(outside_dir() + "/written"));
  const auto twin = run_cli("show constant-add --case 2 --puzzles " + c.twins);
  CHECK(twin.exit_code == 0);
  CHECK_THAT(twin.out, Catch::Contains("This run is right"));
  CHECK_THAT(twin.err, !Catch::Contains("sandbox"));
}

TEST_CASE("A module changed behind the checker's back is rebuilt, and the report says why",
          "[sandbox][modules]") {
  // A copy of its own: the other tests must not meet the module this one changes.
  const std::string copy = copy_dir("sandbox-replaced");
  for (const char* id : {"vector-add", "constant-add"})
    write_text(copy + "/" + stub_name(puzzle(id)), solved_stub(puzzle(id)));
  const std::string module = module_of(copy, "vector-add");
  REQUIRE(run_cli("check vector-add --puzzles " + copy).exit_code == 0);
  SECTION("the module as its build made it is loaded as it is") {
    const auto r = run_cli("check vector-add --json --puzzles " + copy);
    CHECK(r.exit_code == 0);
    CHECK_FALSE(report_of(parse_json(r.out), puzzle("vector-add")).has("note"));
  }
  SECTION("another module copied in its place is rebuilt") {
    // Another puzzle's module, as a stub with write access to the build would put it there.
    const std::string other = module_of(copy, "constant-add");
    REQUIRE(run_cli("check constant-add --puzzles " + copy).exit_code == 0);
    write_text(module, read_text(other));
    std::string extra;
    SECTION("sandboxed") {}
    SECTION("without the sandbox") { extra = " --no-sandbox"; }
    const auto r = run_cli("check vector-add --json --puzzles " + copy + extra);
    CHECK(r.exit_code == 0);
    const json report = report_of(parse_json(r.out), puzzle("vector-add"));
    CHECK(report["status"].string == "solved");
    REQUIRE(report.has("note"));
    CHECK_THAT(report["note"].string, Catch::Contains("is not what its build made"));
    CHECK_THAT(report["note"].string, Catch::Contains("rebuilt from"));
  }
  SECTION("with --no-build, a changed module is refused") {
    std::string bytes = read_text(module);
    bytes.back() ^= 1;
    write_text(module, bytes);
    const auto r = run_cli("check vector-add --no-build --json --puzzles " + copy);
    CHECK(r.exit_code == 1);
    const json report = report_of(parse_json(r.out), puzzle("vector-add"));
    CHECK(kind_of(report) == "compile-error");
    CHECK_THAT(message_of(report), Catch::Contains("is not what its build made"));
    REQUIRE(run_cli("check vector-add --puzzles " + copy).exit_code == 0);
  }
}

TEST_CASE("Where no sandbox can be made, check says so once and checks as before", "[sandbox]") {
  const copies& c = class_copies();
  SECTION("no bubblewrap") {
    ::setenv("TILEPUZZLES_BWRAP", "/nonexistent/bwrap", 1);
    const auto r = run_cli("check constant-add vector-add --puzzles " + c.twins);
    const auto status = run_cli("sandbox");
    ::unsetenv("TILEPUZZLES_BWRAP");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("no sandbox on this machine"));
    CHECK(r.err.find("no sandbox") == r.err.rfind("no sandbox"));
    CHECK(status.exit_code == 1);
    CHECK_THAT(status.out, Catch::Contains("No sandbox on this machine: bubblewrap is not at "
                                           "/nonexistent/bwrap"));
  }
  SECTION("--no-isolate runs the kernels in the checker's process, and says it is without one") {
    const auto r = run_cli("check constant-add --no-isolate --puzzles " + c.twins);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("--no-isolate: your kernels run in this process, so this "
                                      "check compiles and runs them without the sandbox"));
  }
  SECTION("bubblewrap there: no word of it") {
    const auto r = run_cli("check constant-add vector-add --puzzles " + c.twins);
    const auto status = run_cli("sandbox");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.err, !Catch::Contains("sandbox"));
    CHECK(status.exit_code == 0);
    CHECK_THAT(status.out, Catch::Contains("The sandbox works here"));
  }
}

TEST_CASE("A sandbox with the GPU shows the driver's files and bounds memory by data, not address "
          "space",
          "[sandbox]") {
  auto has = [](const std::vector<std::string>& args, std::vector<std::string> run) {
    return std::search(args.begin(), args.end(), run.begin(), run.end()) != args.end();
  };
  ::setenv("LD_LIBRARY_PATH", "/opt/driver-libs:relative/libs", 1);
  tp::sandbox::view with_gpu;
  with_gpu.gpu = true;
  tp::sandbox::limits gpu_limits;
  gpu_limits.data_only = true;
  const auto gpu_args = tp::sandbox::command_line(with_gpu, gpu_limits, {"/bin/true"});
  const auto plain_args = tp::sandbox::command_line({}, {}, {"/bin/true"});
  ::unsetenv("LD_LIBRARY_PATH");
  CHECK(has(gpu_args, {"--ro-bind-try", "/sys", "/sys"}));
  CHECK(has(gpu_args, {"--ro-bind-try", "/opt/driver-libs", "/opt/driver-libs"}));
  CHECK(has(gpu_args, {"--setenv", "LD_LIBRARY_PATH", "/opt/driver-libs:relative/libs"}));
  CHECK_FALSE(has(gpu_args, {"--ro-bind-try", "relative/libs", "relative/libs"}));
  CHECK(has(gpu_args, {"--memory-kind", "data"}));
  // The twin: a sandbox without the GPU has none of it.
  CHECK_FALSE(has(plain_args, {"--ro-bind-try", "/sys", "/sys"}));
  CHECK_FALSE(has(plain_args, {"--memory-kind", "data"}));
  for (const auto& a : plain_args) CHECK_THAT(a, !Catch::StartsWith("/dev/nvidia"));

  // What __limits sets: RLIMIT_DATA alone for a GPU run, RLIMIT_AS otherwise.
  const auto data = run_cli("__limits --memory-mb 300 --memory-kind data -- /bin/sh -c "
                            "'ulimit -d; ulimit -v'");
  CHECK(data.exit_code == 0);
  CHECK(data.out == "307200\nunlimited\n");
  const auto address = run_cli("__limits --memory-mb 300 -- /bin/sh -c 'ulimit -d; ulimit -v'");
  CHECK(address.exit_code == 0);
  CHECK(address.out == "unlimited\n307200\n");
}

TEST_CASE("A compile's sandbox shows a compiler's own prefix and its response file's -isystem "
          "directories, and nothing beside them",
          "[sandbox]") {
  // PREFIX/bin/cc runs PREFIX/libexec/real, as GCC's driver runs cc1 (a g++ under /opt/gcc, say).
  const std::string prefix = copy_dir("toolchain");
  ::mkdir((prefix + "/bin").c_str(), 0777);
  ::mkdir((prefix + "/libexec").c_str(), 0777);
  const std::string beside = copy_dir("beside-the-toolchain");
  write_text(beside + "/secret.txt", "not for the compile\n");
  // A library's headers named by -isystem in a response file, as the GPU module's warps probe's.
  const std::string library = copy_dir("library-headers");
  write_text(library + "/library.h", "library header\n");
  write_text(work_dir() + "/probe.rsp", "-DX=1\n-isystem\n" + library + "\n");
  write_text(prefix + "/libexec/real", "#!/bin/sh\necho compiled\ncat " + library +
                                           "/library.h\ncat " + beside + "/secret.txt\n");
  write_text(prefix + "/bin/cc", "#!/bin/sh\nexec \"$(dirname \"$0\")/../libexec/real\"\n");
  ::chmod((prefix + "/libexec/real").c_str(), 0755);
  ::chmod((prefix + "/bin/cc").c_str(), 0755);
  const auto r = run_cli("__sandbox-compile -- " + prefix + "/bin/cc @" + work_dir() + "/probe.rsp");
  CHECK_THAT(r.out, Catch::StartsWith("compiled\nlibrary header\n"));
  CHECK_THAT(r.out + r.err, !Catch::Contains("not for the compile"));
}
