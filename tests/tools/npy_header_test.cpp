// npy::ParseHeader against what numpy.lib.format reads: headers NumPy writes load, headers NumPy
// refuses are refused, a repeated key keeps its last value, and a header of any length is read
// in one pass (no recursion, so a small stack is enough).
#include "tools/oflite/npy_header.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <string>

#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ExpectError;
using test::Unwrap;

npy::Header Parse(const std::string& text) { return Unwrap(npy::ParseHeader(text)); }

TEST(NpyHeaderTest, ReadsWhatNumpyWrites) {
  const npy::Header h = Parse("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }    \n");
  EXPECT_EQ(h.descr, "<f4");
  EXPECT_FALSE(h.fortran_order);
  EXPECT_EQ(h.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Parse("{'descr': '|b1', 'fortran_order': True, 'shape': (), }").shape.size(), 0u);
  EXPECT_EQ(Parse("{'descr': '<i8', 'fortran_order': False, 'shape': (7,), }").shape,
            std::vector<int64_t>{7});
}

TEST(NpyHeaderTest, AcceptsPythonLiteralSpellingsNumpyAccepts) {
  // double quotes, keys in any order, no trailing comma, newlines and tabs between tokens,
  // a trailing comma inside the tuple, and 00 (a valid Python integer)
  const npy::Header h = Parse("{\"shape\":(4,\t00,),\n\"fortran_order\" : True,'descr':\"<f8\"}\n");
  EXPECT_EQ(h.descr, "<f8");
  EXPECT_TRUE(h.fortran_order);
  EXPECT_EQ(h.shape, (std::vector<int64_t>{4, 0}));
}

TEST(NpyHeaderTest, TakesTheWhitespaceNumpyWritesAroundTheDict) {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}";
  for (const std::string& text : {" \t" + dict, dict + "  \t \n", dict + "\r\n", dict}) {
    EXPECT_EQ(Parse(text).shape, std::vector<int64_t>{1}) << text;
  }
}

TEST(NpyHeaderTest, ARepeatedKeyKeepsItsLastValueAsAPythonDictDoes) {
  const npy::Header h = Parse(
      "{'shape': (9, 9), 'descr': '<f4', 'fortran_order': True, 'shape': (3,), "
      "'fortran_order': False}");
  EXPECT_EQ(h.shape, std::vector<int64_t>{3});
  EXPECT_FALSE(h.fortran_order);
  // the last value decides its type too
  EXPECT_EQ(Parse("{'descr': (1,), 'fortran_order': False, 'shape': (), 'descr': '<i4'}").descr,
            "<i4");
  ExpectError(npy::ParseHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (), "
                               "'descr': (1,)}"),
              ErrorKind::kValueError, {"'descr' is not a dtype string"});
}

TEST(NpyHeaderTest, RefusesWhatNumpyRefuses) {
  const std::string good = "'descr': '<f4', 'fortran_order': False, 'shape': (2,)";
  struct Bad {
    std::string text;
    std::string fragment;
  };
  const Bad cases[] = {
      {"{" + good + ", 'extra': 1}", "unexpected key 'extra'"},
      {"{" + good + ", 'extra': 'x'}", "unexpected key 'extra'"},
      {"{'descr': '<f4', 'shape': (2,)}", "does not hold all of"},
      {"{'descr': '<f4\", 'fortran_order': False, 'shape': (2,)}", "expected ',' or '}'"},
      {"{'descr': '<f4}", "unterminated string"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", "expected ',' or '}'"},
      {"{" + good + "} trailing", "unexpected text after the header dict"},
      {"{" + good + "}}", "unexpected text after the header dict"},
      {"{" + good + "}" + std::string(1, '\0'), "unexpected text after the header dict"},
      {"{'desc" + std::string(1, '\0') + "r': '<f4'}", "unsupported character"},
      {"{'descr': '<f\xe9', 'fortran_order': False, 'shape': (2,)}", "unsupported character"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", "expected a string, True"},
      {"{'descr': '<f4', 'fortran_order': 'False', 'shape': (2,)}", "'fortran_order' is not"},
      {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,)}", "expected a string, True"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2)}", "(N) is an integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': 2}", "expected a string, True"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (02,)}", "leading zero"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", "non-negative"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}", "expected ',' or ')'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (,)}", "non-negative"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1e3,)}", "non-negative"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ((2,),)}", "non-negative"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1234567890123456789,)}", "too large"},
      {"{'descr': '<f4' 'fortran_order': False}", "expected ',' or '}'"},
      {"['descr', '<f4']", "expected '{'"},
      {"", "expected '{'"},
      {"{,}", "expected a quoted string"},
      // Python's literal_eval: an indented line is an IndentationError
      {"\n {" + good + "}", "expected '{'"},
      {"{" + good + "}\n ", "unexpected text after the header dict"},
  };
  for (const Bad& bad : cases) {
    ExpectError(npy::ParseHeader(bad.text), ErrorKind::kValueError, {bad.fragment});
  }
}

// The parser is a loop: a header of NumPy's largest size parses on a 256 KiB stack (the regex
// it replaced recursed once per character: about 20,000 frames for 10 KB overflowed 3 MiB).
void* ParseLongHeaders(void* result) {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                           std::string(9000, ' ') + "5,), }" + std::string(900, ' ') + "\n";
  const Maybe<npy::Header> padded = npy::ParseHeader(dict);
  std::string many_dims = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  while (many_dims.size() < 9900) {
    many_dims += "1, ";
  }
  const Maybe<npy::Header> long_tuple = npy::ParseHeader(many_dims + ")}");
  *static_cast<bool*>(result) =
      padded.ok() && padded.value().shape == std::vector<int64_t>{5} && long_tuple.ok();
  return nullptr;
}

TEST(NpyHeaderTest, LongHeadersParseOnASmallStack) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, 256 * 1024), 0);
  bool ok = false;
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, &attr, ParseLongHeaders, &ok), 0);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  pthread_attr_destroy(&attr);
  EXPECT_TRUE(ok);
}

}  // namespace
}  // namespace oflite
