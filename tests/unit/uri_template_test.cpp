// Tests of mcp/uri_template.hpp: RFC 6570 expansion (the RFC's own examples for levels 1-3 and
// the prefix modifier), parse errors, and matching URIs back to variables.
#include <mcp/uri_template.hpp>

#include <gtest/gtest.h>

namespace {

using mcp::uri_template;
using mcp::uri_variables;

std::string expand(std::string_view t, const uri_variables& vars) {
  auto parsed = uri_template::parse(t);
  EXPECT_TRUE(parsed) << t;
  return parsed ? parsed->expand(vars) : std::string("<parse error>");
}

const uri_variables rfc_vars = {{"var", "value"},     {"hello", "Hello World!"},
                                {"path", "/foo/bar"}, {"x", "1024"},
                                {"y", "768"},         {"empty", ""}};

TEST(uri_template, expands_level1_and_level2_examples_of_rfc6570) {
  EXPECT_EQ(expand("{var}", rfc_vars), "value");
  EXPECT_EQ(expand("{hello}", rfc_vars), "Hello%20World%21");
  EXPECT_EQ(expand("{+var}", rfc_vars), "value");
  EXPECT_EQ(expand("{+hello}", rfc_vars), "Hello%20World!");
  EXPECT_EQ(expand("{+path}/here", rfc_vars), "/foo/bar/here");
  EXPECT_EQ(expand("here?ref={+path}", rfc_vars), "here?ref=/foo/bar");
  EXPECT_EQ(expand("X{#var}", rfc_vars), "X#value");
  EXPECT_EQ(expand("X{#hello}", rfc_vars), "X#Hello%20World!");
}

TEST(uri_template, expands_level3_examples_of_rfc6570) {
  EXPECT_EQ(expand("map?{x,y}", rfc_vars), "map?1024,768");
  EXPECT_EQ(expand("{x,hello,y}", rfc_vars), "1024,Hello%20World%21,768");
  EXPECT_EQ(expand("{+x,hello,y}", rfc_vars), "1024,Hello%20World!,768");
  EXPECT_EQ(expand("{+path,x}/here", rfc_vars), "/foo/bar,1024/here");
  EXPECT_EQ(expand("{#x,hello,y}", rfc_vars), "#1024,Hello%20World!,768");
  EXPECT_EQ(expand("X{.var}", rfc_vars), "X.value");
  EXPECT_EQ(expand("X{.x,y}", rfc_vars), "X.1024.768");
  EXPECT_EQ(expand("{/var}", rfc_vars), "/value");
  EXPECT_EQ(expand("{/var,x}/here", rfc_vars), "/value/1024/here");
  EXPECT_EQ(expand("{;x,y}", rfc_vars), ";x=1024;y=768");
  EXPECT_EQ(expand("{;x,y,empty}", rfc_vars), ";x=1024;y=768;empty");
  EXPECT_EQ(expand("{?x,y}", rfc_vars), "?x=1024&y=768");
  EXPECT_EQ(expand("{?x,y,empty}", rfc_vars), "?x=1024&y=768&empty=");
  EXPECT_EQ(expand("?fixed=yes{&x}", rfc_vars), "?fixed=yes&x=1024");
  EXPECT_EQ(expand("{var:3}", rfc_vars), "val");
  EXPECT_EQ(expand("{?undefined}", rfc_vars), "");
  EXPECT_EQ(expand("a{undefined}b", rfc_vars), "ab");
}

TEST(uri_template, rejects_malformed_templates) {
  for (const char* bad :
       {"{", "a{b", "a}b", "{}", "{=x}", "{,x}", "{x:0}", "{x:abc}", "{a b}", "{x.}"}) {
    auto t = uri_template::parse(bad);
    ASSERT_FALSE(t) << bad;
    EXPECT_TRUE(t.error().is(mcp::errc::invalid_params)) << bad;
  }
  auto ok = uri_template::parse("test://template/{id}/data");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->variable_names(), std::vector<std::string>{"id"});
  EXPECT_EQ(ok->text(), "test://template/{id}/data");
}

TEST(uri_template, matches_simple_variables_between_literals) {
  auto t = uri_template::parse("test://template/{id}/data");
  ASSERT_TRUE(t);
  auto m = t->match("test://template/123/data");
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, (uri_variables{{"id", "123"}}));
  EXPECT_EQ(t->match("test://template/a%20b/data"), (uri_variables{{"id", "a b"}}));
  EXPECT_FALSE(t->match("test://template/1/2/data"));  // simple values have no '/'
  EXPECT_FALSE(t->match("test://template//data"));     // and are not empty
  EXPECT_FALSE(t->match("test://template/123/datax"));
  EXPECT_FALSE(t->match("test://other/123/data"));
}

TEST(uri_template, matches_reserved_paths_queries_and_segments) {
  auto files = uri_template::parse("file:///{+path}{?rev,mode}");
  ASSERT_TRUE(files);
  EXPECT_EQ(files->match("file:///src/a/b.cpp"), (uri_variables{{"path", "src/a/b.cpp"}}));
  EXPECT_EQ(files->match("file:///x.txt?mode=ro&rev=3"),
            (uri_variables{{"path", "x.txt"}, {"rev", "3"}, {"mode", "ro"}}));
  EXPECT_FALSE(files->match("file:///x.txt?other=1"));

  auto segs = uri_template::parse("repo://{owner}{/name,branch}");
  ASSERT_TRUE(segs);
  EXPECT_EQ(segs->match("repo://me/tool/main"),
            (uri_variables{{"owner", "me"}, {"name", "tool"}, {"branch", "main"}}));

  auto two = uri_template::parse("db://{table}/{id}");
  ASSERT_TRUE(two);
  EXPECT_EQ(two->match("db://users/42"), (uri_variables{{"table", "users"}, {"id", "42"}}));
}

TEST(uri_template, expansion_and_matching_round_trip) {
  auto t = uri_template::parse("notes://{user}/{+path}{?q}");
  ASSERT_TRUE(t);
  const uri_variables vars{{"user", "ann lee"}, {"path", "work/todo list.md"}, {"q", "a&b"}};
  const auto uri = t->expand(vars);
  EXPECT_EQ(uri, "notes://ann%20lee/work/todo%20list.md?q=a%26b");
  EXPECT_EQ(t->match(uri), vars);
}

}  // namespace

TEST(uri_template, matching_decodes_bytes_as_given_and_parts_are_bounded) {
  auto t = mcp::uri_template::parse("file:///{name}");
  ASSERT_TRUE(t);
  auto vars = t->match("file:///a%95b");
  ASSERT_TRUE(vars);
  EXPECT_EQ(vars->at("name"),
            "a\x95"
            "b");  // the caller checks it is text (resources/read does)
  std::string many;
  for (int i = 0; i < 300; ++i) many += "x{v" + std::to_string(i) + "}";
  auto refused = mcp::uri_template::parse(many);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("256"), std::string::npos) << refused.error().message;
  many.clear();
  for (int i = 0; i < 120; ++i) many += "x{v" + std::to_string(i) + "}";
  EXPECT_TRUE(mcp::uri_template::parse(many));
}

TEST(uri_template, a_name_repeated_in_the_template_takes_its_first_value) {
  auto t = mcp::uri_template::parse("db://{table}/{row}/{table}");
  ASSERT_TRUE(t);
  auto vars = t->match("db://users/7/orders");
  ASSERT_TRUE(vars);
  EXPECT_EQ(vars->at("table"), "users");
  EXPECT_EQ(vars->at("row"), "7");
  EXPECT_EQ(vars->size(), 2U);
  // A failed branch leaves nothing behind: the first split tried ("a/b" for x) fails.
  auto u = mcp::uri_template::parse("x://{+x}/{y}/end");
  ASSERT_TRUE(u);
  auto got = u->match("x://a/b/end");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->at("x"), "a");
  EXPECT_EQ(got->at("y"), "b");
  EXPECT_FALSE(u->match("x://a/b/c"));
}
