#include "checker/hints.hpp"

#include <regex>

namespace tp {

std::string hints_file(const puzzle_spec& spec) { return "docs/hints/" + spec.id + ".md"; }

std::string page_section(const std::string& page, const std::string& heading) {
  const std::size_t start = page.find("\n" + heading + "\n");
  if (start == std::string::npos) return {};
  const std::size_t body = start + heading.size() + 2;
  const std::size_t end = page.find("\n## ", body);
  return page.substr(body, end == std::string::npos ? std::string::npos : end - body);
}

std::vector<hint> parse_hints(const std::string& text, std::string& leftover) {
  static const std::regex block(
      R"(<details><summary>([^<]*)</summary>\n\n([\s\S]*?)\n\n</details>\n)");
  std::vector<hint> hints;
  leftover.clear();
  std::size_t last = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), block), end; it != end; ++it) {
    leftover += text.substr(last, it->position() - last);
    hints.push_back({(*it)[1].str(), (*it)[2].str()});
    last = it->position() + it->length();
  }
  leftover += text.substr(last);
  leftover = std::regex_replace(leftover, std::regex(R"(\s+)"), "");
  return hints;
}

std::vector<hint> hints_in(const std::string& hints_text) {
  std::string leftover;
  // The last block of a file that ends right after it may lack its final newline.
  return parse_hints(page_section(hints_text + "\n", "## Hints"), leftover);
}

}  // namespace tp
