// RESP replies: hiredis's reader does the syntax; the objects it creates are ours. A child is
// built in place in its parent's element vector (sized when the array's header is read, so the
// addresses hiredis keeps for nested arrays stay valid); only the root is allocated on its own.
// Each object function checks the reply's budget first and refuses (NULL, which hiredis reports
// as out of memory) when an array would pass `max_elements` or the strings `max_bytes`.
#include "redis/reply_parser.hpp"

#include <memory>
#include <new>

#include <hiredis/read.h>

namespace mcp::redis_detail {

namespace {

using budget = reply_parser::budget;

budget& budget_of(const redisReadTask* task) { return *static_cast<budget*>(task->privdata); }

/// Where the object of `task` goes: in place in its parent array, or a new root.
redis_reply* place(const redisReadTask* task) noexcept {
  if (task->parent != nullptr) {
    auto* parent = static_cast<redis_reply*>(task->parent->obj);
    if (parent == nullptr || task->idx < 0 ||
        static_cast<std::size_t>(task->idx) >= parent->elements.size()) {
      return nullptr;
    }
    return &parent->elements[static_cast<std::size_t>(task->idx)];
  }
  return new (std::nothrow) redis_reply();
}

void* create_string(const redisReadTask* task, char* str, size_t len) noexcept {
  budget& b = budget_of(task);
  if (len > b.lim.max_bytes - b.bytes) {
    b.exceeded = "a reply's strings are larger than max_reply_bytes";
    return nullptr;
  }
  redis_reply* r = place(task);
  if (r == nullptr) return nullptr;
  try {
    r->str.assign(str, len);
  } catch (...) {
    if (task->parent == nullptr) delete r;
    return nullptr;
  }
  b.bytes += len;
  switch (task->type) {
    case REDIS_REPLY_ERROR:
      r->type = redis_reply::kind::error;
      break;
    case REDIS_REPLY_STATUS:
      r->type = redis_reply::kind::status;
      break;
    default:
      r->type = redis_reply::kind::string;
      break;
  }
  return r;
}

void* create_array(const redisReadTask* task, int elements) noexcept {
  budget& b = budget_of(task);
  if (elements < 0 || static_cast<std::size_t>(elements) > b.lim.max_elements - b.elements) {
    b.exceeded = "a reply has more elements than max_reply_elements";
    return nullptr;
  }
  redis_reply* r = place(task);
  if (r == nullptr) return nullptr;
  try {
    r->elements.resize(static_cast<std::size_t>(elements));
  } catch (...) {
    if (task->parent == nullptr) delete r;
    return nullptr;
  }
  b.elements += static_cast<std::size_t>(elements);
  r->type = redis_reply::kind::array;
  return r;
}

void* create_integer(const redisReadTask* task, long long value) noexcept {
  redis_reply* r = place(task);
  if (r == nullptr) return nullptr;
  r->type = redis_reply::kind::integer;
  r->integer = value;
  return r;
}

void* create_nil(const redisReadTask* task) noexcept {
  redis_reply* r = place(task);
  if (r == nullptr) return nullptr;
  r->type = redis_reply::kind::nil;
  return r;
}

/// hiredis frees only roots (a partial reply when it fails, or when the reader goes).
void free_object(void* obj) noexcept { delete static_cast<redis_reply*>(obj); }

redisReplyObjectFunctions object_functions = {create_string, create_array, create_integer,
                                              create_nil, free_object};

}  // namespace

reply_parser::reply_parser(limits l) : budget_{l} {
  reader_ = redisReaderCreateWithFunctions(&object_functions);
  if (reader_ != nullptr) reader_->privdata = &budget_;
}

reply_parser::~reply_parser() {
  if (reader_ != nullptr) redisReaderFree(reader_);
}

result<void> reply_parser::feed(std::string_view bytes) {
  if (reader_ == nullptr || failed_) {
    return error{errc::internal_error, "redis: the reply parser failed"};
  }
  if (reader_->len - reader_->pos > budget_.lim.max_bytes) {
    failed_ = true;
    return error{errc::limit_exceeded, "redis: a reply is larger than max_reply_bytes"};
  }
  if (redisReaderFeed(reader_, bytes.data(), bytes.size()) != REDIS_OK) {
    failed_ = true;
    return error{errc::internal_error, "redis: out of memory reading a reply"};
  }
  return {};
}

result<std::optional<redis_reply>> reply_parser::next() {
  if (reader_ == nullptr || failed_) {
    return error{errc::internal_error, "redis: the reply parser failed"};
  }
  void* obj = nullptr;
  if (redisReaderGetReply(reader_, &obj) != REDIS_OK) {
    failed_ = true;
    if (budget_.exceeded != nullptr) {
      return error{errc::limit_exceeded, std::string("redis: ") + budget_.exceeded};
    }
    return error{errc::internal_error,
                 std::string("redis: a reply does not parse (") + reader_->errstr + ")"};
  }
  if (obj == nullptr) return std::optional<redis_reply>{};  // the budget goes on counting
  std::unique_ptr<redis_reply> root(static_cast<redis_reply*>(obj));
  budget_.bytes = 0;  // the next reply has a budget of its own
  budget_.elements = 0;
  return std::optional<redis_reply>{std::move(*root)};
}

bool reply_parser::idle() const noexcept {
  return reader_ == nullptr || (reader_->len == reader_->pos && reader_->ridx == -1);
}

}  // namespace mcp::redis_detail
