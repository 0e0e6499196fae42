#include "http/stream.hpp"

#include <mcp/jsonrpc.hpp>

#include <utility>

#include "detail/clear_keeping.hpp"
#include "http/sse.hpp"

namespace mcp::http_detail {

response_stream::response_stream(config c) : cfg_(std::move(c)) {
  if (cfg_.standalone || cfg_.force_sse) {
    std::lock_guard lock(mu_);
    to_sse_locked();
  }
}

void response_stream::clear_pending_locked() {
  detail::clear_keeping(pending_, 64);  // a backlog's room goes with it
  taken_ = 0;
  pending_bytes_ = 0;
}

std::string response_stream::event_id(std::uint64_t seq) const {
  return std::to_string(cfg_.number) + "-" + std::to_string(seq);
}

void response_stream::to_sse_locked() {
  mode_ = mode::sse;
  if (cfg_.priming && resumable()) {
    pending_event ev;
    append_sse_event(ev.bytes, event_id(0), "", cfg_.retry);
    pending_bytes_ += ev.bytes.size();
    pending_.push_back(std::move(ev));
  }
  for (auto& f : held_finals_) emit_locked(f);
  held_finals_.clear();
}

void response_stream::to_json_locked(std::string body, bool is_result) {
  mode_ = mode::json;
  json_body_ = std::move(body);
  if (cfg_.json_status != nullptr) status_ = is_result ? 200 : cfg_.json_status(json_body_);
}

unsigned response_stream::json_status() const {
  std::lock_guard lock(mu_);
  return status_;
}

void response_stream::emit_locked(std::string_view message) {
  const std::uint64_t seq = ++seq_;
  const bool keep = resumable();
  if (keep) cfg_.store->append(cfg_.session, cfg_.number, seq, message);
  if (writer_ == writer::gone) return;  // in the store (or lost, when not resumable)
  pending_event ev;
  ev.message = true;
  ev.bytes.reserve(message.size() + 32);
  append_sse_event(ev.bytes, keep ? event_id(seq) : std::string(), message);
  pending_bytes_ += ev.bytes.size();
  pending_.push_back(std::move(ev));
  if (pending_bytes_ > cfg_.max_pending_bytes && writer_ == writer::attached) {
    // The client does not keep up: cut the writer off (it sees `superseded` and closes).
    ++generation_;
    writer_ = writer::gone;
    clear_pending_locked();
    cut_off_ = true;  // the writer must still be woken to notice
  }
}

std::function<void()> response_stream::finish_locked() {
  if (finished_) return {};
  finished_ = true;
  return std::exchange(cfg_.on_finished, nullptr);
}

void response_stream::push(std::string message, bool is_final, bool is_result) {
  std::function<void()> wake;
  std::function<void()> done;
  {
    std::lock_guard lock(mu_);
    if (finished_) return;
    if (is_final) ++finals_;
    const bool all_done = !cfg_.standalone && finals_ >= cfg_.expected_finals;
    if (mode_ == mode::undecided) {
      if (!is_final) {
        to_sse_locked();
        emit_locked(message);
      } else if (!cfg_.batch) {
        to_json_locked(std::move(message), is_result);  // the one request's answer, as it is
      } else {
        held_finals_.push_back(std::move(message));
        if (all_done) {
          to_json_locked(jsonrpc::encode_batch(held_finals_));
          held_finals_.clear();
        }
      }
    } else {
      emit_locked(message);
    }
    if (all_done) done = finish_locked();
    if (writer_ == writer::attached || cut_off_) wake = waker_;
    cut_off_ = false;
  }
  if (done) done();
  if (wake) wake();
}

void response_stream::settle_unanswered() {
  std::function<void()> wake;
  std::function<void()> done;
  {
    std::lock_guard lock(mu_);
    if (finished_ || cfg_.standalone) return;
    if (++finals_ < cfg_.expected_finals) return;
    if (mode_ == mode::undecided) {
      if (held_finals_.empty()) {
        to_sse_locked();  // nothing to answer with: an SSE stream that ends
      } else {
        to_json_locked(jsonrpc::encode_batch(held_finals_));  // a batch: the answers that came
        held_finals_.clear();
      }
    }
    done = finish_locked();
    if (writer_ == writer::attached || cut_off_) wake = waker_;
    cut_off_ = false;
  }
  if (done) done();
  if (wake) wake();
}

void response_stream::finish() {
  std::function<void()> wake;
  std::function<void()> done;
  {
    std::lock_guard lock(mu_);
    done = finish_locked();
    if (writer_ == writer::attached) wake = waker_;
  }
  if (done) done();
  if (wake) wake();
}

bool response_stream::request_disconnect() {
  std::function<void()> wake;
  {
    std::lock_guard lock(mu_);
    if (!resumable() || finished_ || cfg_.standalone || mode_ == mode::json) return false;
    if (!cfg_.priming && seq_ == 0) return false;  // no event id for the client to resume from
    if (mode_ == mode::undecided) to_sse_locked();
    if (writer_ == writer::gone) return true;  // no connection to end
    disconnect_ = true;
    if (writer_ == writer::attached) wake = waker_;
  }
  if (wake) wake();
  return true;
}

std::optional<std::string> response_stream::take_json_answer() {
  std::lock_guard lock(mu_);
  if (mode_ != mode::json || writer_ != writer::none_yet) return std::nullopt;
  writer_ = writer::gone;
  return std::move(json_body_);
}

std::uint64_t response_stream::attach(std::function<void()> waker) {
  std::lock_guard lock(mu_);
  writer_ = writer::attached;
  waker_ = std::move(waker);
  return ++generation_;
}

response_stream::taken response_stream::take(std::uint64_t generation, std::size_t max_messages) {
  std::lock_guard lock(mu_);
  taken t;
  if (generation != generation_) {
    t.superseded = true;
    return t;
  }
  t.kind = mode_;
  if (mode_ == mode::json) {
    t.bytes = std::move(json_body_);
    t.status = status_;
    t.finished = true;
    return t;
  }
  for (; taken_ < pending_.size(); ++taken_) {
    auto& ev = pending_[taken_];
    if (ev.message) {
      if (max_messages != 0 && t.messages == max_messages) break;
      ++t.messages;
    }
    t.bytes += ev.bytes;
    pending_bytes_ -= ev.bytes.size();
    std::string().swap(ev.bytes);  // its memory goes now, not when the rest is taken
  }
  if (taken_ == pending_.size()) clear_pending_locked();
  t.finished = finished_ && pending_.empty();
  if (disconnect_ && pending_.empty()) {
    t.disconnect = !t.finished;
    disconnect_ = false;
  }
  return t;
}

void response_stream::detach(std::uint64_t generation) {
  std::function<void()> abandoned;
  {
    std::lock_guard lock(mu_);
    if (generation != generation_) return;
    writer_ = writer::gone;
    waker_ = nullptr;
    disconnect_ = false;  // meant for the connection that just went away
    clear_pending_locked();
    if (!finished_) abandoned = std::exchange(cfg_.on_abandoned, nullptr);
  }
  if (abandoned) abandoned();
}

bool response_stream::rewind(std::uint64_t after_seq) {
  std::lock_guard lock(mu_);
  if (!resumable() || mode_ != mode::sse) return false;
  std::optional<std::vector<stored_event>> events;
  if (after_seq == seq_ && !cfg_.replay) {
    events.emplace();  // a live stream with nothing after it yet (resuming from priming)
  } else {
    events = cfg_.store->events_after(cfg_.session, cfg_.number, after_seq);
  }
  if (!events) return false;
  clear_pending_locked();
  for (auto& e : *events) {
    pending_event ev;
    ev.message = true;
    append_sse_event(ev.bytes, event_id(e.seq), e.data);
    pending_bytes_ += ev.bytes.size();
    pending_.push_back(std::move(ev));
  }
  ++generation_;  // the previous writer, if any, stops
  writer_ = writer::none_yet;
  waker_ = nullptr;
  disconnect_ = false;
  return true;
}

bool response_stream::attached() const {
  std::lock_guard lock(mu_);
  return writer_ == writer::attached;
}

bool response_stream::finished() const {
  std::lock_guard lock(mu_);
  return finished_;
}

}  // namespace mcp::http_detail
