// The metrics observer (mcp/observe/metrics.hpp): the recording side (metrics_series.hpp has
// the series, metrics_snapshot.cpp the collection). Counters of operations and errors are sums
// of the histograms, made at collection.
#include <mcp/observe/metrics.hpp>

#include "metrics_series.hpp"

namespace mcp::observe {

using namespace series;  // NOLINT(google-build-using-namespace): this file's own internals

metrics::metrics(metrics_options opts) : impl_(std::make_unique<impl>(std::move(opts))) {}
metrics::~metrics() = default;

std::shared_ptr<metrics> make_metrics(metrics_options opts) {
  return std::shared_ptr<metrics>(new metrics(std::move(opts)));
}

const resource_attributes& metrics::resource() const noexcept { return impl_->opts.resource; }

bool metrics::spans_by_attribute_set() const noexcept {
  return !impl_->opts.resource_uri_attribute;
}

span metrics::on_start(const operation& op) {
  span s;
  s.active = true;
  s.start = now_if_unset(op.start);
  s.word = reinterpret_cast<std::uintptr_t>(impl_->operation_group(op));
  // The side is needed at the end to classify; it travels in the low bit (groups are aligned).
  s.word |= op.side == kind::client ? 1U : 0U;
  return s;
}

namespace {

/// The group of a span's word (`on_start`), without the side's bit.
group* group_of(const span& s) noexcept {
  return reinterpret_cast<group*>(s.word & ~std::uintptr_t{1});
}

/// `on_end` past its usual case (an error, no end reading, a cell this thread has not cached,
/// a later bucket, a span already ended): out of line, so that the usual success is recorded
/// without a frame.
[[gnu::noinline]] void end_other(span& s, const outcome& o) {
  if (!s.active || s.word == 0) return;
  const auto side = (s.word & 1U) != 0 ? kind::client : kind::server;
  const auto ns = elapsed_ns(s.start, now_if_unset(o.end));
  if (o.status == status::ok) {
    group_of(s)->record_ok(ns);
  } else {
    group_of(s)->cell_for(classify(side, o)).record(ns);
  }
  s.active = false;
}

}  // namespace

void metrics::on_end(span& s, const outcome& o) {
  // A success ended in the first bucket into a cell this thread knows: the rest is `end_other`.
  if (s.active && s.word != 0 && o.status == status::ok && o.end != steady::time_point{})
      [[likely]] {
    const auto ns = elapsed_ns(s.start, o.end);
    if (auto* cell = group_of(s)->known_cell(); cell != nullptr && ns <= bounds_ns[0]) [[likely]] {
      s.active = false;
      return cell->record_alone_first(ns);
    }
  }
  end_other(s, o);
}

void metrics::record(const operation& op, const outcome& o, double seconds) {
  auto* g = impl_->operation_group(op);
  const auto ns = seconds <= 0 ? 0 : static_cast<std::uint64_t>(seconds * 1e9 + 0.5);
  g->cell_for(classify(op.side, o)).record(ns);
}

span metrics::on_session_start(const session_info& info) {
  impl_->active_sessions[side_index(info.side)].add(1);
  span s;
  s.active = true;
  s.start = steady::now();
  s.word = reinterpret_cast<std::uintptr_t>(impl_->session_group(info)) |
           (info.side == kind::client ? 1U : 0U);
  return s;
}

void metrics::on_session_end(span& s, std::string_view error_type) {
  if (!s.active || s.word == 0) return;
  const auto side = (s.word & 1U) != 0 ? kind::client : kind::server;
  impl_->active_sessions[side_index(side)].add(-1);
  auto* g = reinterpret_cast<group*>(s.word & ~std::uintptr_t{1});
  error_classification c;
  c.error_type = std::string(error_type);
  g->cell_for(c).record(elapsed_ns(s.start, steady::now()));
  s.active = false;
}

void metrics::on_denial(const denial& d) {
  std::string key;
  key_field(key, d.method);
  key_field(key, d.target);
  key_field(key, d.reason);
  impl_->denials[side_index(d.side)].add(key, [&d] {
    std::vector<attribute> a{{attr::method_name, std::string(d.method)}};
    if (const auto k = target_key(d.method); !k.empty() && !d.target.empty()) {
      a.push_back({k, std::string(d.target)});
    }
    if (!d.reason.empty()) a.push_back({attr::denial_reason, std::string(d.reason)});
    return a;
  });
}

void metrics::on_task_status(std::string_view tool, std::string_view task_status) {
  std::string key;
  key_field(key, tool);
  key_field(key, task_status);
  impl_->tasks.add(key, [&] {
    std::vector<attribute> a;
    if (!tool.empty()) a.push_back({attr::tool_name, std::string(tool)});
    a.push_back({attr::task_status, std::string(task_status)});
    return a;
  });
}

void metrics::on_stream(kind side, int delta) {
  impl_->active_streams[side_index(side)].add(delta);
}

}  // namespace mcp::observe
