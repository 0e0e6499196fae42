// The Redis client (mcp/redis.hpp): URLs (good and malformed), commands with binary arguments,
// pipelines, scripts (EVALSHA, and EVAL after Redis forgot them), error replies, reply limits,
// the pool under concurrent use, databases, unix sockets, passwords and pub/sub.
#include <mcp/redis.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "redis/redis_server.hpp"

namespace {

using namespace std::chrono_literals;
using mcp::redis_reply;
using mcp::test::redis_server;

std::shared_ptr<mcp::redis_client> client_for(const std::string& url, mcp::redis_options o = {}) {
  o.url = url;
  auto c = mcp::make_redis_client(o);
  if (!c) ADD_FAILURE() << c.error().message;
  return c ? *c : nullptr;
}

TEST(redis_url, parses_what_the_options_document) {
  auto ep = mcp::parse_redis_url("redis://127.0.0.1:6380/2").value();
  EXPECT_EQ(ep.host, "127.0.0.1");
  EXPECT_EQ(ep.port, 6380);
  EXPECT_EQ(ep.db, 2);
  EXPECT_TRUE(ep.password.empty());
  ep = mcp::parse_redis_url("redis://localhost").value();
  EXPECT_EQ(ep.host, "localhost");
  EXPECT_EQ(ep.port, 6379);
  EXPECT_EQ(ep.db, 0);
  ep = mcp::parse_redis_url("redis://:p%40ss/w@cache.internal:7000/15").value();
  EXPECT_EQ(ep.password, "p@ss/w");
  EXPECT_EQ(ep.user, "");
  EXPECT_EQ(ep.host, "cache.internal");
  EXPECT_EQ(ep.db, 15);
  ep = mcp::parse_redis_url("redis://app:secret@[::1]:6390").value();
  EXPECT_EQ(ep.user, "app");
  EXPECT_EQ(ep.password, "secret");
  EXPECT_EQ(ep.host, "::1");
  EXPECT_EQ(ep.port, 6390);
  ep = mcp::parse_redis_url("unix:///run/redis/redis.sock?db=3").value();
  EXPECT_EQ(ep.unix_path, "/run/redis/redis.sock");
  EXPECT_EQ(ep.db, 3);
  EXPECT_TRUE(ep.host.empty());
  ep = mcp::parse_redis_url("unix://:pw@/tmp/r.sock").value();
  EXPECT_EQ(ep.password, "pw");
  EXPECT_EQ(ep.unix_path, "/tmp/r.sock");
}

TEST(redis_url, refuses_malformed_urls_with_the_reason) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "scheme"},
      {"http://localhost:6379", "scheme"},
      {"redis://", "no host"},
      {"redis://:6379", "no host"},
      {"redis://host:", "empty port"},
      {"redis://host:0", "port"},
      {"redis://host:65536", "port"},
      {"redis://host:12ab", "port"},
      {"redis://host/x", "database"},
      {"redis://host/-1", "database"},
      {"redis://ho st", "space"},
      {"redis://h\x01st", "control"},
      {"redis://user@host", "credentials"},
      {"redis://:@host", "empty password"},
      {"redis://:%zz@host", "escape"},
      {"redis://:%4@host", "escape"},
      {"redis://[::1", "unclosed"},
      {"redis://[::1]x", "junk"},
      {"redis://host/1/2", "database"},
      {"unix://relative/path", "absolute"},
      {"unix:///tmp/s?password=x", "query"},
      {"unix:///tmp/s?db=x", "db"},
      {"unix:///tmp/a%00b", "NUL"},
      {"redis://h_o$t", "host"},
      {"redis://" + std::string(5000, 'a'), "4 KiB"},
  };
  for (const auto& [url, why] : bad) {
    const auto r = mcp::parse_redis_url(url);
    ASSERT_FALSE(r) << url;
    EXPECT_TRUE(r.error().is(mcp::errc::invalid_params)) << url;
    EXPECT_NE(r.error().message.find(why), std::string::npos) << url << ": " << r.error().message;
    EXPECT_FALSE(mcp::make_redis_client({.url = url})) << url;
  }
  EXPECT_FALSE(mcp::make_redis_client({.pool_size = 0}));
  EXPECT_FALSE(mcp::make_redis_client({.command_timeout = 0ms}));
}

class redis_client_test : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.running()) << "redis-server did not start";
    client_ = client_for(server_.url());
    ASSERT_NE(client_, nullptr);
  }
  redis_server server_;
  std::shared_ptr<mcp::redis_client> client_;
};

TEST_F(redis_client_test, arguments_and_replies_are_binary_safe) {
  const std::string key = std::string("k\0\r\n", 4);
  std::string value;
  for (int i = 0; i < 256; ++i) value.push_back(static_cast<char>(i));
  value += "\r\n$3\r\n*1\r\n";
  ASSERT_TRUE(client_->command({"SET", key, value}));
  const auto got = client_->command({"GET", key});
  ASSERT_TRUE(got);
  EXPECT_EQ(got->type, redis_reply::kind::string);
  EXPECT_EQ(got->str, value);
  EXPECT_TRUE(client_->command({"GET", "missing"})->is_nil());
  const auto n = client_->command({"INCRBY", "n", "41"});
  EXPECT_EQ(n->type, redis_reply::kind::integer);
  EXPECT_EQ(n->integer, 41);
  EXPECT_EQ(client_->command({"PING"})->type, redis_reply::kind::status);
  const auto big = std::string(3 << 20, 'x');  // more than one read
  ASSERT_TRUE(client_->command({"SET", "big", big}));
  EXPECT_EQ(client_->command({"GET", "big"})->str, big);
}

TEST_F(redis_client_test, error_replies_are_errors_and_the_connection_goes_on) {
  const auto r = client_->command({"NOSUCHCOMMAND", "x"});
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::internal_error));
  EXPECT_EQ(r.error().message.rfind("redis: ERR", 0), 0U) << r.error().message;
  ASSERT_TRUE(client_->command({"SET", "s", "1"}));
  const auto wrong = client_->command({"LPUSH", "s", "x"});
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("WRONGTYPE"), std::string::npos);
  EXPECT_TRUE(client_->command({"PING"}));
  const std::span<const std::string_view> none;
  EXPECT_TRUE(client_->command(none).error().is(mcp::errc::invalid_params));
}

TEST_F(redis_client_test, a_pipeline_is_one_exchange_with_one_reply_per_command) {
  const std::vector<std::vector<std::string_view>> cmds = {{"SET", "a", "1"},
                                                           {"INCR", "a"},
                                                           {"LPUSH", "a", "x"},
                                                           {"GET", "a"},
                                                           {"LRANGE", "l", "0", "-1"}};
  const auto r = client_->pipeline(cmds);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 5U);
  EXPECT_EQ((*r)[0].str, "OK");
  EXPECT_EQ((*r)[1].integer, 2);
  EXPECT_EQ((*r)[2].type, redis_reply::kind::error);  // its own error, the others go on
  EXPECT_EQ((*r)[3].str, "2");
  EXPECT_TRUE((*r)[4].is_array());
  EXPECT_TRUE((*r)[4].elements.empty());
}

TEST_F(redis_client_test, scripts_are_loaded_once_and_sent_again_when_redis_forgot_them) {
  static const mcp::redis_script script(
      "redis.call('INCR', KEYS[1]); return {redis.call('GET', KEYS[1]), ARGV[1], {1, false}}");
  const std::string_view keys[] = {"counter"};
  const std::string_view args[] = {"hello"};
  auto r = client_->eval(script, keys, args);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(script.sha().size(), 40U);
  ASSERT_EQ(r->elements.size(), 3U);
  EXPECT_EQ(r->elements[0].str, "1");
  EXPECT_EQ(r->elements[1].str, "hello");
  ASSERT_EQ(r->elements[2].elements.size(), 2U);
  EXPECT_EQ(r->elements[2].elements[0].integer, 1);
  EXPECT_TRUE(r->elements[2].elements[1].is_nil());
  ASSERT_TRUE(client_->command({"SCRIPT", "FLUSH"}));
  r = client_->eval(script, keys, args);  // NOSCRIPT, then EVAL
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->elements[0].str, "2");
  EXPECT_EQ(client_->command({"SCRIPT", "EXISTS", script.sha()})->elements[0].integer, 1);
  static const mcp::redis_script failing("return redis.error_reply('MYERR no')");
  const auto e = client_->eval(failing, {}, {});
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("MYERR no"), std::string::npos) << e.error().message;
}

TEST_F(redis_client_test, replies_over_the_limits_are_refused_and_the_pool_recovers) {
  auto small = client_for(server_.url(), {.max_reply_bytes = 1000, .max_reply_elements = 50});
  ASSERT_TRUE(small);
  ASSERT_TRUE(small->command({"SET", "long", std::string(5000, 'v')}));
  auto r = small->command({"GET", "long"});
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::limit_exceeded)) << r.error().message;
  ASSERT_TRUE(small->command({"SET", "short", "ok"}));
  EXPECT_EQ(small->command({"GET", "short"})->str, "ok");
  // Many small strings: the elements, then the bytes of one reply add up.
  std::vector<std::string_view> push = {"RPUSH", "list"};
  const std::string item(30, 'i');
  for (int i = 0; i < 60; ++i) push.emplace_back(item);
  ASSERT_TRUE(small->command(push));
  r = small->command({"LRANGE", "list", "0", "-1"});
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::limit_exceeded)) << r.error().message;
  r = small->command({"LRANGE", "list", "0", "39"});  // 40 elements, 1200 bytes
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::limit_exceeded)) << r.error().message;
  r = small->command({"LRANGE", "list", "0", "19"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->elements.size(), 20U);
}

TEST_F(redis_client_test, the_pool_serves_many_threads_with_few_connections) {
  auto pooled = client_for(server_.url(), {.pool_size = 3});
  ASSERT_TRUE(pooled);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        if (!pooled->command({"INCR", "shared"})) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(pooled->command({"GET", "shared"})->str, "1600");
  const auto clients = client_->command({"CLIENT", "LIST"});
  ASSERT_TRUE(clients);
  // The pool's three and client_'s one.
  EXPECT_EQ(std::count(clients->str.begin(), clients->str.end(), '\n'), 4);
}

TEST_F(redis_client_test, a_database_number_and_a_unix_socket_are_honoured) {
  ASSERT_TRUE(client_->command({"SET", "where", "db0"}));
  auto db3 = client_for(server_.url() + "/3");
  ASSERT_TRUE(db3);
  EXPECT_TRUE(db3->command({"GET", "where"})->is_nil());
  ASSERT_TRUE(db3->command({"SET", "where", "db3"}));
  EXPECT_EQ(client_->command({"GET", "where"})->str, "db0");
  redis_server with_socket({.unix_socket = true});
  ASSERT_TRUE(with_socket.running());
  auto over_unix = client_for(with_socket.unix_url() + "?db=3");
  ASSERT_TRUE(over_unix);
  ASSERT_TRUE(over_unix->command({"SET", "via", "unix"}));
  auto over_tcp = client_for(with_socket.url() + "/3");
  EXPECT_EQ(over_tcp->command({"GET", "via"})->str, "unix");
}

TEST(redis_auth, a_wrong_or_missing_password_is_a_clear_error) {
  redis_server server({.password = "s3cret"});
  ASSERT_TRUE(server.running());
  const std::string base = "redis://127.0.0.1:" + std::to_string(server.port());
  auto wrong = client_for("redis://:nope@127.0.0.1:" + std::to_string(server.port()));
  ASSERT_TRUE(wrong);
  auto r = wrong->command({"PING"});
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::connection_closed));
  EXPECT_NE(r.error().message.find("AUTH was refused"), std::string::npos) << r.error().message;
  auto store = mcp::make_redis_task_store(
      {.url = "redis://:nope@127.0.0.1:" + std::to_string(server.port())});
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message.find("AUTH"), std::string::npos) << store.error().message;
  auto none = client_for(base);
  r = none->command({"PING"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("NOAUTH"), std::string::npos) << r.error().message;
  auto right = client_for(server.url());
  EXPECT_TRUE(right->command({"PING"}));
  EXPECT_TRUE(mcp::make_redis_task_store({.url = server.url()}));
}

/// Messages a subscription received.
struct inbox {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<std::string, bool>> got;
  std::vector<std::thread::id> threads;
  auto callback() {
    return [this](std::string_view m, bool resubscribed) {
      const std::lock_guard lock(mu);
      got.emplace_back(std::string(m), resubscribed);
      threads.push_back(std::this_thread::get_id());
      cv.notify_all();
    };
  }
  bool wait_for(std::size_t n, std::chrono::milliseconds timeout = 5s) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, timeout, [&] { return got.size() >= n; });
  }
};

TEST_F(redis_client_test, subscribers_get_messages_on_the_subscriber_thread) {
  inbox a, b;
  auto sa = client_->subscribe("chan", a.callback());
  auto sb = client_->subscribe("chan", b.callback());
  ASSERT_TRUE(client_->subscribed(5s));
  auto publisher = client_for(server_.url());
  EXPECT_EQ(publisher->command({"PUBLISH", "chan", std::string("m\0 1", 4)})->integer, 1);
  ASSERT_TRUE(a.wait_for(1));
  ASSERT_TRUE(b.wait_for(1));
  EXPECT_EQ(a.got[0].first, std::string("m\0 1", 4));
  EXPECT_FALSE(a.got[0].second);
  EXPECT_NE(a.threads[0], std::this_thread::get_id());
  EXPECT_EQ(a.threads[0], b.threads[0]);
  sa.reset();  // b stays subscribed
  ASSERT_TRUE(publisher->command({"PUBLISH", "chan", "m2"}));
  ASSERT_TRUE(b.wait_for(2));
  EXPECT_FALSE(a.wait_for(2, 200ms));
  sb.reset();
  // Redis is told: nobody listens any more.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (publisher->command({"PUBSUB", "NUMSUB", "chan"})->elements[1].integer != 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(publisher->command({"PUBSUB", "NUMSUB", "chan"})->elements[1].integer, 0);
}

TEST_F(redis_client_test, a_subscription_may_be_dropped_inside_its_own_callback) {
  std::mutex mu;
  std::condition_variable cv;
  int calls = 0;
  mcp::redis_subscription sub;
  sub = client_->subscribe("once", [&](std::string_view, bool) {
    const std::lock_guard lock(mu);
    ++calls;
    sub.reset();
    cv.notify_all();
  });
  ASSERT_TRUE(client_->subscribed(5s));
  auto publisher = client_for(server_.url());
  ASSERT_TRUE(publisher->command({"PUBLISH", "once", "1"}));
  std::unique_lock lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, 5s, [&] { return calls == 1; }));
  lock.unlock();
  ASSERT_TRUE(publisher->command({"PUBLISH", "once", "2"}));
  std::this_thread::sleep_for(200ms);
  lock.lock();
  EXPECT_EQ(calls, 1);
}

TEST_F(redis_client_test, subscriptions_come_and_go_from_many_threads_while_messages_flow) {
  auto publisher = client_for(server_.url());
  std::atomic<bool> stop{false};
  std::thread pub([&] {
    while (!stop) {
      for (const char* ch : {"c0", "c1", "c2"}) (void)publisher->command({"PUBLISH", ch, "m"});
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 30; ++i) {
        auto sub =
            client_->subscribe("c" + std::to_string((t + i) % 3), [](std::string_view, bool) {});
        std::this_thread::sleep_for(std::chrono::milliseconds(i % 3));
      }
    });
  }
  for (auto& t : threads) t.join();
  // A subscription made after the others went still works.
  inbox last;
  auto sub = client_->subscribe("c1", last.callback());
  ASSERT_TRUE(client_->subscribed(5s));
  EXPECT_TRUE(last.wait_for(1));
  stop = true;
  pub.join();
  // Redis was told of every unsubscription: only the last one is left.
  const auto numsub = [&](const char* ch) {
    return publisher->command({"PUBSUB", "NUMSUB", ch})->elements[1].integer;
  };
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while ((numsub("c0") != 0 || numsub("c2") != 0) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(numsub("c0"), 0);
  EXPECT_EQ(numsub("c1"), 1);
  EXPECT_EQ(numsub("c2"), 0);
}

}  // namespace
