// Answering a server's requests for input from the command line.
//   - elicitation/create: a form is asked field by field on a terminal (defaults shown, Enter
//     takes them), or answered with the schema's defaults (--elicit accept-defaults), or
//     declined; a URL is shown and the user says when done.
//   - sampling/createMessage (--sampling ask): the person at the terminal is the model: the
//     request (system prompt, messages, token limit) is shown and the reply typed; an empty
//     reply refuses (-1, as the spec says for a user who rejects the request).
// Everything shown of the server goes through terminal_safe. A request the server cancels (or
// a session that ends) while the user is typing stops the prompt: the answer would be dropped.
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tools_cli.hpp"
#include <poll.h>
#include <unistd.h>

namespace mcp::cli {

namespace {

std::timed_mutex terminal_mu;             // one elicitation on the terminal at a time
std::atomic<bool> prompt_reading{false};  // a command prompt (inspect) owns stdin now

elicitation_answer decline() { return elicitation_answer::decline(); }

/// One line typed at the terminal (without its '\n'); nothing at the end of input or when
/// `stop` is requested, which is then said on the terminal. Reads stdin itself (not through
/// std::cin) so that a wait can end: the terminal hands over whole lines, so nothing typed
/// is left buffered for another reader.
std::optional<std::string> read_line(const std::stop_token& stop) {
  std::string line;
  for (;;) {
    if (stop.stop_requested()) {
      std::cerr << "\n(the server no longer waits for this answer)\n";
      return std::nullopt;
    }
    pollfd p{.fd = STDIN_FILENO, .events = POLLIN, .revents = 0};
    const int ready = ::poll(&p, 1, 100);
    if (ready < 0 && errno != EINTR) return std::nullopt;
    if (ready <= 0) continue;
    char c = 0;
    const auto n = ::read(STDIN_FILENO, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return line.empty() ? std::nullopt : std::optional<std::string>(line);
    if (c == '\n') return line;
    if (line.size() < (std::size_t{1} << 20U)) line.push_back(c);
  }
}

/// The terminal, once the question before this one is answered; not owned when `stop` is
/// requested first (the server withdrew this request while it waited its turn).
std::unique_lock<std::timed_mutex> take_terminal(const std::stop_token& stop) {
  std::unique_lock lock(terminal_mu, std::defer_lock);
  while (!stop.stop_requested() && !lock.try_lock_for(std::chrono::milliseconds(100))) {
  }
  if (lock.owns_lock() && stop.stop_requested()) lock.unlock();
  return lock;
}

std::string text_of(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

/// `line` read as a value of the property's type, or nothing.
std::optional<json::value> typed(const json::object& prop, const std::string& line) {
  const std::string type = text_of(prop, "type");
  if (const auto* e = prop.if_contains("enum"); e != nullptr && e->is_array()) {
    for (const auto& option : e->get_array()) {
      if (option.is_string() && option.get_string() == line) return option;
    }
    return std::nullopt;
  }
  if (type == "boolean") {
    if (line == "true" || line == "yes" || line == "y") return json::value(true);
    if (line == "false" || line == "no" || line == "n") return json::value(false);
    return std::nullopt;
  }
  if (type == "integer" || type == "number") {
    auto v = parse_json(line);
    if (!v || !v->is_number()) return std::nullopt;
    if (type == "integer" && !v->is_int64() && !v->is_uint64()) return std::nullopt;
    return *v;
  }
  return json::value(line);
}

/// A form answered on the terminal: each property asked in turn, then accept, decline or
/// cancel. Returns nullopt when stdin ends.
std::optional<elicitation_answer> ask_form(const elicitation_request& q,
                                           const std::stop_token& stop) {
  const json::object empty;
  const auto& s = q.requested_schema ? *q.requested_schema : empty;
  const auto* props = s.if_contains("properties");
  std::vector<std::string> required;
  if (const auto* r = s.if_contains("required"); r != nullptr && r->is_array()) {
    for (const auto& n : r->get_array()) {
      if (n.is_string()) required.emplace_back(n.get_string());
    }
  }
  std::cerr << "\nThe server asks: " << terminal_safe(q.message) << "\n";
  json::object content;
  if (props != nullptr && props->is_object()) {
    for (const auto& [key, value] : props->get_object()) {
      if (!value.is_object()) continue;
      const auto& prop = value.get_object();
      const std::string name(key);
      const bool needed = std::find(required.begin(), required.end(), name) != required.end();
      const auto* def = prop.if_contains("default");
      for (int tries = 0; tries < 3; ++tries) {
        std::cerr << "  " << terminal_safe(name);
        if (const auto t = text_of(prop, "title"); !t.empty()) {
          std::cerr << " (" << terminal_safe(t) << ")";
        }
        std::cerr << " [" << terminal_safe(text_of(prop, "type"));
        if (const auto* e = prop.if_contains("enum"); e != nullptr) {
          std::cerr << ": " << terminal_safe(json::serialize(*e));
        }
        std::cerr << (needed ? ", required" : "") << "]";
        if (def != nullptr)
          std::cerr << " (default " << terminal_safe(json::serialize(*def)) << ")";
        std::cerr << ": " << std::flush;
        const auto typed_line = read_line(stop);
        if (!typed_line) return std::nullopt;
        const std::string& line = *typed_line;
        if (line.empty()) {
          if (def != nullptr) content[name] = *def;
          if (def != nullptr || !needed) break;
          std::cerr << "  (required)\n";
          continue;
        }
        if (auto v = typed(prop, line)) {
          content[name] = std::move(*v);
          break;
        }
        std::cerr << "  (not a valid " << terminal_safe(text_of(prop, "type")) << ")\n";
      }
    }
  }
  std::cerr << "Send this answer? [Y]es, [n]o (decline), [c]ancel: " << std::flush;
  const auto answer = read_line(stop);
  if (!answer) return std::nullopt;
  if (*answer == "n" || *answer == "no") return decline();
  if (*answer == "c" || *answer == "cancel") return elicitation_answer::cancel();
  return elicitation_answer::accept(std::move(content));
}

/// The schema's defaults as the answer, or a decline when a required property has none.
elicitation_answer form_defaults(const elicitation_request& q) {
  json::object content;
  if (!q.requested_schema) return decline();
  const auto& s = *q.requested_schema;
  if (const auto* props = s.if_contains("properties"); props != nullptr && props->is_object()) {
    for (const auto& [key, value] : props->get_object()) {
      if (!value.is_object()) continue;
      if (const auto* def = value.get_object().if_contains("default")) content[key] = *def;
    }
  }
  if (const auto* r = s.if_contains("required"); r != nullptr && r->is_array()) {
    for (const auto& n : r->get_array()) {
      if (n.is_string() && !content.contains(n.get_string())) {
        std::cerr << "mcp-cpp: the server asks for " << terminal_safe(n.get_string())
                  << ", which has no default: declined\n";
        return decline();
      }
    }
  }
  return elicitation_answer::accept(std::move(content));
}

}  // namespace

elicitation_handler ask_elicitation(const std::string& mode) {
  return [mode](const elicitation_request& q, std::stop_token stop) -> result<elicitation_answer> {
    const bool url_mode = q.is_url();
    if (mode == "decline") return decline();
    if (mode == "accept-defaults") {
      if (url_mode) return decline();
      return form_defaults(q);
    }
    if (::isatty(STDIN_FILENO) == 0) {
      std::cerr << "mcp-cpp: the server asks for input (" << terminal_safe(q.message)
                << "); declined: stdin is not a terminal (see --elicit)\n";
      return decline();
    }
    if (prompt_reading) {  // stdin is the prompt's: two readers would split the user's lines
      std::cerr << "\nmcp-cpp: the server asked for input (" << terminal_safe(q.message)
                << ") while no call was running: declined\n";
      return decline();
    }
    const auto lock = take_terminal(stop);
    if (!lock.owns_lock()) return decline();  // withdrawn while another question was asked
    if (url_mode) {
      std::cerr << "\nThe server asks you to open a page: " << terminal_safe(q.message) << "\n  "
                << terminal_safe(q.url.value_or(""))
                << "\nPress Enter when done, or type n to decline: " << std::flush;
      const auto answer = read_line(stop);
      if (!answer || *answer == "n") return decline();
      return elicitation_answer::accept();
    }
    if (auto answer = ask_form(q, stop)) return *answer;
    return decline();
  };
}

namespace {

/// One content block of a sampling message, for the terminal.
std::string shown(const json::value& block) {
  if (!block.is_object()) return "[?]";
  const auto& b = block.get_object();
  const auto type = text_of(b, "type");
  if (type == "text") return terminal_safe(text_of(b, "text"));
  std::string out = "[";  // built in steps: GCC 12 misreads "x" + std::string as overlapping
  out += terminal_safe(type);
  if (type == "image" || type == "audio")
    out.append(" ").append(terminal_safe(text_of(b, "mimeType")));
  out += ']';
  return out;
}

}  // namespace

sampling_handler ask_sampling() {
  return [](const sampling_request& q, std::stop_token stop) -> result<sampling_answer> {
    const auto refuse = [](std::string why) { return error{errc::user_rejected, std::move(why)}; };
    if (::isatty(STDIN_FILENO) == 0) {
      std::cerr << "mcp-cpp: the server asks for a model reply; refused: stdin is not a terminal\n";
      return refuse("the user cannot answer: no terminal");
    }
    if (prompt_reading) {
      std::cerr << "\nmcp-cpp: the server asked for a model reply while no call was running: "
                   "refused\n";
      return refuse("the user rejected the sampling request");
    }
    const auto lock = take_terminal(stop);
    if (!lock.owns_lock()) return refuse("the request was withdrawn before it was asked");
    std::cerr << "\nThe server asks for a model reply";
    std::cerr << " (at most " << q.max_tokens << " tokens):\n";
    if (q.system_prompt && !q.system_prompt->empty()) {
      std::cerr << "  [system] " << terminal_safe(*q.system_prompt) << "\n";
    }
    for (const auto& m : q.messages) {
      std::cerr << "  [" << terminal_safe(m.role) << "] ";
      if (const auto* blocks = m.content.if_array()) {
        for (const auto& b : *blocks) std::cerr << shown(b) << " ";
      } else {
        std::cerr << shown(m.content);
      }
      std::cerr << "\n";
    }
    std::cerr << "Your reply as the model (one line; empty to refuse): " << std::flush;
    const auto reply = read_line(stop);
    if (!reply || reply->empty()) return refuse("the user rejected the sampling request");
    return sampling_answer{.role = "assistant",
                           .content = text_content(*reply),
                           .model = "human at the mcp-cpp terminal",
                           .stop_reason = "endTurn"};
  };
}

void set_prompt_reading(bool reading) { prompt_reading = reading; }

void wait_for_prompts(std::chrono::milliseconds at_most) {
  if (terminal_mu.try_lock_for(at_most)) terminal_mu.unlock();
}

}  // namespace mcp::cli
