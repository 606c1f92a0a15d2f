#include "checker/hints.hpp"

#include <algorithm>
#include <regex>

namespace tp {

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

std::vector<hint> hints_of_page(const std::string& page) {
  std::string leftover;
  // The last block of a page that ends right after it may lack its final newline.
  return parse_hints(page_section(page + "\n", "## Hints"), leftover);
}

std::string page_with_hints_folded(const std::string& page, int puzzle_number) {
  const std::string heading = "\n## Hints\n";
  const std::size_t start = page.find(heading);
  const auto hints = hints_of_page(page);
  if (start == std::string::npos || hints.empty()) return page;
  const std::size_t body = start + heading.size();
  const std::size_t end = page.find("\n## ", body);
  const std::string n = std::to_string(puzzle_number);
  std::string text =
      "\nAsk for the hints one at a time, so that each can help before the next gives more "
      "away:\n";
  for (std::size_t i = 0; i < hints.size(); ++i) {
    const std::string command =
        "tilepuzzles hint " + n + (i == 0 ? "" : " " + std::to_string(i + 1));
    const std::size_t colon = hints[i].summary.find(": ");
    text += "  " + command +
            (colon == std::string::npos ? "" : std::string(26 - std::min<std::size_t>(command.size(), 25), ' ') +
                                                   hints[i].summary.substr(colon + 2)) +
            "\n";
  }
  return page.substr(0, body) + text + (end == std::string::npos ? "" : page.substr(end));
}

}  // namespace tp
