// Test support: what promtool does not check in a Prometheus text exposition. Every histogram
// series has its buckets in increasing `le`, cumulative counts that never decrease, a `+Inf`
// bucket equal to `_count`, and a `_sum`; every sample line parses.
#pragma once

#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace mcp::observe_test {

/// One sample line taken apart.
struct sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

/// Parses `name{a="x",...} value`; false when it does not parse.
inline bool parse_sample(std::string_view line, sample& out) {
  const auto brace = line.find('{');
  const auto space = line.find(' ');
  std::size_t i = 0;
  if (brace != std::string_view::npos && brace < space) {
    out.name = std::string(line.substr(0, brace));
    i = brace + 1;
    while (i < line.size() && line[i] != '}') {
      const auto eq = line.find("=\"", i);
      if (eq == std::string_view::npos) return false;
      const std::string key(line.substr(i, eq - i));
      std::string value;
      std::size_t j = eq + 2;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size()) {
          ++j;
          value += line[j] == 'n' ? '\n' : line[j];
        } else {
          value += line[j];
        }
      }
      if (j >= line.size()) return false;
      out.labels[key] = value;
      i = j + 1;
      if (i < line.size() && line[i] == ',') ++i;
    }
    if (i >= line.size()) return false;
    ++i;  // '}'
  } else {
    if (space == std::string_view::npos) return false;
    out.name = std::string(line.substr(0, space));
    i = space;
  }
  if (i >= line.size() || line[i] != ' ') return false;
  const std::string v(line.substr(i + 1));
  if (v == "+Inf" || v == "-Inf" || v == "NaN") return true;
  char* end = nullptr;
  out.value = std::strtod(v.c_str(), &end);
  return end != nullptr && *end == '\0' && !v.empty();
}

/// A description of each problem found (empty: none).
inline std::string check_histograms(const std::string& text) {
  std::string problems;
  struct series {
    std::vector<std::pair<double, double>> buckets;  // (le, cumulative)
    bool has_inf = false;
    double inf = 0;
    bool has_count = false;
    double count = 0;
    bool has_sum = false;
  };
  std::map<std::string, bool> histograms;  // family names
  std::map<std::string, series> all;       // family + labels without le
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream t(line.substr(7));
      std::string name, type;
      t >> name >> type;
      if (type == "histogram") histograms[name] = true;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    sample s;
    if (!parse_sample(line, s)) {
      problems += "unparsable line: " + line + "\n";
      continue;
    }
    for (const std::string_view suffix : {"_bucket", "_sum", "_count"}) {
      if (s.name.size() <= suffix.size() ||
          s.name.compare(s.name.size() - suffix.size(), suffix.size(), suffix) != 0) {
        continue;
      }
      const auto family = s.name.substr(0, s.name.size() - suffix.size());
      if (!histograms.count(family)) continue;
      auto labels = s.labels;
      const auto le = labels["le"];
      labels.erase("le");
      std::string key = family + "{";
      for (const auto& [k, v] : labels) key += k + "=" + v + ",";
      auto& ser = all[key];
      if (suffix == "_bucket") {
        if (le == "+Inf") {
          ser.has_inf = true;
          ser.inf = s.value;
        } else {
          ser.buckets.emplace_back(std::strtod(le.c_str(), nullptr), s.value);
        }
      } else if (suffix == "_count") {
        ser.has_count = true;
        ser.count = s.value;
      } else {
        ser.has_sum = true;
      }
    }
  }
  for (const auto& [key, ser] : all) {
    for (std::size_t i = 1; i < ser.buckets.size(); ++i) {
      if (!(ser.buckets[i].first > ser.buckets[i - 1].first)) {
        problems += key + ": le not increasing\n";
      }
      if (ser.buckets[i].second < ser.buckets[i - 1].second) {
        problems += key + ": bucket counts decrease\n";
      }
    }
    if (!ser.has_inf) problems += key + ": no +Inf bucket\n";
    if (!ser.has_count) problems += key + ": no _count\n";
    if (!ser.has_sum) problems += key + ": no _sum\n";
    if (ser.has_inf && ser.has_count && ser.inf != ser.count) {
      problems += key + ": +Inf bucket != _count\n";
    }
    if (!ser.buckets.empty() && ser.has_inf && ser.buckets.back().second > ser.inf) {
      problems += key + ": a bucket above +Inf\n";
    }
  }
  return problems;
}

}  // namespace mcp::observe_test
