// A span's `jsonrpc.request.id` as the exporter posts it: an integer id kept as one in the
// record is written by the encoders as the text the attribute is (the string_value, the
// stringValue), a text id as it is; each decoded by the local receiver (otlp-sink.mjs, with the
// opentelemetry-proto definitions) in both encodings; protobuf spans of every size around the
// length prefix's steps. Also the decimal writer the encoders use, against what the standard
// library writes.
#include <mcp/observe/otlp.hpp>
#include <mcp/observe/tracing.hpp>

#include <gtest/gtest.h>

#include <array>
#include <charconv>
#include <limits>
#include <string>
#include <vector>

#include "observe/otlp_sink.hpp"
#include "observe/otlp_write.hpp"

namespace {

using namespace otlp_test;
using namespace mcp::observe;
using namespace std::chrono_literals;

/// `v` as `std::to_chars` writes it.
std::string decimal(std::int64_t v) {
  std::array<char, 24> buf{};
  char* end = std::to_chars(buf.data(), buf.data() + buf.size(), v).ptr;
  return std::string(buf.data(), end);
}

/// Integer ids around every power of ten and at both ends of int64, and a few texts.
std::vector<mcp::jsonrpc::request_id> ids() {
  std::vector<mcp::jsonrpc::request_id> out{std::int64_t{0},
                                            std::numeric_limits<std::int64_t>::max(),
                                            std::numeric_limits<std::int64_t>::min(),
                                            std::numeric_limits<std::int64_t>::min() + 1,
                                            std::string("7"),
                                            std::string("-12"),
                                            std::string("req \"a\"\\b\n\xc3\xa9"),
                                            std::string(200, '9'),
                                            std::int64_t{1'000'000'000'000'000'000},
                                            std::int64_t{-1'000'000'000'000'000'000}};
  for (std::int64_t p = 1; p <= std::numeric_limits<std::int64_t>::max() / 10; p *= 10) {
    for (const auto v : {p - 1, p, p + 1, 10 * p - 1}) {
      out.emplace_back(v);
      out.emplace_back(-v);
    }
  }
  return out;
}

/// The text the attribute must carry for `id`.
std::string expected(const mcp::jsonrpc::request_id& id) {
  if (const auto* n = std::get_if<std::int64_t>(&id)) return decimal(*n);
  return std::get<std::string>(id);
}

/// Every id of `ids()` in a span of its own, exported in `encoding`, decoded by the receiver:
/// each span's `jsonrpc.request.id` is the id's exact text, a string value.
void ids_decode(otlp_encoding encoding) {
  sink s({});
  ASSERT_TRUE(s.ok()) << s.log();
  auto e = make_otlp_exporter(fast(s, encoding));
  ASSERT_TRUE(e) << e.error().message;
  const auto all = ids();
  for (std::size_t i = 0; i < all.size(); ++i) {
    auto r = one_span();
    r->request_id = all[i];
    r->start_unix_ns = i + 1;  // which id the span carries, as it is decoded
    r->end_unix_ns = i + 1;
    (*e)->export_span(std::move(r));
  }
  ASSERT_TRUE((*e)->flush(20s));
  EXPECT_EQ((*e)->stats().spans_exported, all.size());
  std::size_t seen = 0;
  for (const auto& line : s.lines()) {
    ASSERT_EQ(text(line, "ok"), "true") << mcp::to_json_string(line).substr(0, 2000);
    EXPECT_EQ(text(line, "encoding"), encoding == otlp_encoding::json ? "json" : "protobuf");
    for (const auto& sp : spans_of(line)) {
      const auto i = std::stoull(text(sp.as_object(), "startTimeUnixNano")) - 1;
      ASSERT_LT(i, all.size());
      const auto& list = sp.at("attributes").as_array();
      ASSERT_EQ(list.size(), 2U);  // the shape's method name, then the id
      EXPECT_EQ(list.at(1).at("key").as_string(), "jsonrpc.request.id");
      const auto& value = list.at(1).at("value").as_object();
      ASSERT_TRUE(value.contains("stringValue")) << mcp::to_json_string(sp);
      EXPECT_EQ(value.at("stringValue").as_string(), expected(all[i])) << i;
      ++seen;
    }
  }
  EXPECT_EQ(seen, all.size());
  (*e)->shutdown();
}

TEST(OtlpIds, IntegerAndTextIdsDecodeAsTheirTextFromJson) { ids_decode(otlp_encoding::json); }

TEST(OtlpIds, IntegerAndTextIdsDecodeAsTheirTextFromProtobuf) {
  ids_decode(otlp_encoding::protobuf);
}

TEST(OtlpIds, ProtobufSpansAroundEachLengthPrefixSizeDecode) {
  // A span's length prefix is written after its fields, which are moved when it does not take
  // two bytes: spans of every size around 128 and 16,384 bytes (one, two and three bytes).
  sink s({});
  ASSERT_TRUE(s.ok()) << s.log();
  auto e = make_otlp_exporter(fast(s, otlp_encoding::protobuf));
  ASSERT_TRUE(e) << e.error().message;
  std::vector<std::size_t> sizes;
  for (std::size_t m = 0; m < 120; ++m) sizes.push_back(m);
  for (std::size_t m = 16'200; m < 16'400; ++m) sizes.push_back(m);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    auto r = one_span();
    r->request_id = static_cast<std::int64_t>(i);
    r->status = span_status::error;
    r->status_message = std::string(sizes[i], 'm');
    (*e)->export_span(std::move(r));
  }
  ASSERT_TRUE((*e)->flush(20s));
  EXPECT_EQ((*e)->stats().spans_exported, sizes.size());
  std::size_t seen = 0;
  for (const auto& line : s.lines()) {
    ASSERT_EQ(text(line, "ok"), "true") << mcp::to_json_string(line).substr(0, 2000);
    for (const auto& sp : spans_of(line)) {
      const auto& list = sp.at("attributes").as_array();
      ASSERT_EQ(list.size(), 2U);
      const auto i = std::stoull(std::string(list.at(1).at("value").at("stringValue").as_string()));
      ASSERT_LT(i, sizes.size());
      const auto* message = sp.at("status").as_object().if_contains("message");
      EXPECT_EQ(message == nullptr ? 0 : message->as_string().size(), sizes[i]) << i;
      EXPECT_EQ(text(sp.as_object(), "name"), "ping");
      ++seen;
    }
  }
  EXPECT_EQ(seen, sizes.size());
  (*e)->shutdown();
}

TEST(OtlpIds, AnIntegerIdIsListedAsItsText) {
  span_record r;
  r.request_id = std::numeric_limits<std::int64_t>::min();
  const auto a = r.attributes();
  ASSERT_EQ(a.size(), 1U);
  EXPECT_EQ(a[0].key, attr::request_id);
  EXPECT_EQ(std::get<std::string>(a[0].value), "-9223372036854775808");
  r.request_id = std::string();  // an empty text: absent
  EXPECT_TRUE(r.attributes().empty());
}

TEST(OtlpIds, DecimalsOfEveryLengthAreWrittenExactly) {
  std::vector<std::uint64_t> values{0, 10'000'000'000'000'000'000U,
                                    std::numeric_limits<std::uint64_t>::max()};
  for (std::uint64_t p = 1; p <= std::numeric_limits<std::uint64_t>::max() / 10; p *= 10) {
    for (const auto v : {p - 1, p, p + 1, 2 * p, 10 * p - 1}) values.push_back(v);
  }
  for (const auto v : values) {
    std::array<char, 24> want{};
    const auto* want_end = std::to_chars(want.data(), want.data() + want.size(), v).ptr;
    const std::string_view expect(want.data(), static_cast<std::size_t>(want_end - want.data()));
    const auto n = detail::decimal_size(v);
    ASSERT_EQ(n, expect.size()) << v;
    std::string got(n + 2, '#');
    detail::write_decimal_ending(got.data() + 1 + n, v);
    EXPECT_EQ(got, "#" + std::string(expect) + "#") << v;  // nothing written around it
  }
}

}  // namespace
