// Maybe<T> and Error: the value and error states, the macros that make and pass on errors,
// and the context chain each pass adds to.
#include "oneflow_lite/common/maybe.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "oneflow_lite/common/error.h"
#include "oneflow_lite/common/shape.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ExpectError;

// Three levels of calls: Positive raises, Doubled and Checked pass the error on.
Maybe<int> Positive(int x) {
  OFLITE_CHECK_OR_RETURN(x > 0, ValueError) << "x must be positive, got " << x;
  return x;
}

Maybe<int64_t> Doubled(int x) {
  int value = 0;
  OFLITE_ASSIGN_OR_RETURN(value, Positive(x));
  return int64_t{2} * value;
}

Maybe<void> Checked(int x) {
  OFLITE_JUST(Doubled(x));
  return Ok();
}

Maybe<std::string> Outermost(int x) {
  OFLITE_JUST(Checked(x));
  return std::string("ok");
}

Maybe<void> FailsWith(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kValueError:
      return OFLITE_ERROR(ValueError) << "v";
    case ErrorKind::kTypeError:
      return OFLITE_ERROR(TypeError) << "t";
    case ErrorKind::kIndexError:
      return OFLITE_ERROR(IndexError) << "i";
    case ErrorKind::kNotImplemented:
      return OFLITE_ERROR(NotImplemented) << "n";
    case ErrorKind::kDeviceError:
      return OFLITE_ERROR(DeviceError) << "d";
    case ErrorKind::kOutOfMemory:
      return OFLITE_ERROR(OutOfMemory) << "o";
    case ErrorKind::kRuntimeError:
      return OFLITE_ERROR(RuntimeError) << "r";
  }
  return Ok();
}

TEST(MaybeTest, ValueState) {
  Maybe<int> maybe = Positive(3);
  ASSERT_TRUE(maybe.ok());
  EXPECT_TRUE(static_cast<bool>(maybe));
  EXPECT_EQ(maybe.value(), 3);
  EXPECT_EQ(std::move(maybe).value(), 3);

  Maybe<std::vector<int>> vec = std::vector<int>{1, 2, 3};
  ASSERT_TRUE(vec.ok());
  EXPECT_EQ(vec.value(), (std::vector<int>{1, 2, 3}));
}

TEST(MaybeTest, ErrorState) {
  Maybe<int> maybe = Positive(-4);
  ASSERT_FALSE(maybe.ok());
  EXPECT_FALSE(static_cast<bool>(maybe));
  EXPECT_EQ(maybe.error().kind(), ErrorKind::kValueError);
  EXPECT_EQ(maybe.error().message(), "x must be positive, got -4");
  ASSERT_NE(maybe.error_ptr(), nullptr);
  ASSERT_EQ(maybe.error().context().size(), 1u);
  EXPECT_NE(maybe.error().context()[0].find("Positive"), std::string::npos)
      << maybe.error().context()[0];
  EXPECT_NE(maybe.error().context()[0].find("maybe_test.cpp"), std::string::npos)
      << maybe.error().context()[0];
}

TEST(MaybeTest, MadeFromAnError) {
  Maybe<double> maybe = Error(ErrorKind::kIndexError, "index 7 out of range");
  ASSERT_FALSE(maybe.ok());
  EXPECT_EQ(maybe.error().kind(), ErrorKind::kIndexError);
  EXPECT_EQ(maybe.error().message(), "index 7 out of range");
  EXPECT_TRUE(maybe.error().context().empty());
}

TEST(MaybeTest, CheckOrReturnGivesEachKindAndMessage) {
  const std::vector<std::pair<ErrorKind, std::string>> cases = {
      {ErrorKind::kValueError, "v"},   {ErrorKind::kTypeError, "t"},
      {ErrorKind::kIndexError, "i"},   {ErrorKind::kNotImplemented, "n"},
      {ErrorKind::kDeviceError, "d"},  {ErrorKind::kOutOfMemory, "o"},
      {ErrorKind::kRuntimeError, "r"},
  };
  for (const auto& [kind, message] : cases) {
    Maybe<void> result = FailsWith(kind);
    ASSERT_FALSE(result.ok()) << ErrorKindName(kind);
    EXPECT_EQ(result.error().kind(), kind);
    EXPECT_EQ(result.error().message(), message);
  }
}

TEST(MaybeTest, CheckOrReturnPassesWhenTheConditionHolds) {
  auto check = [](int x) -> Maybe<void> {
    OFLITE_CHECK_OR_RETURN(x % 2 == 0, ValueError) << x << " is odd";
    return Ok();
  };
  EXPECT_TRUE(check(4).ok());
  ExpectError(check(5), ErrorKind::kValueError, {"5 is odd"});
}

TEST(MaybeTest, ErrorsPassOnWithOneContextFramePerLevel) {
  Maybe<int64_t> level2 = Doubled(-1);
  Maybe<void> level3 = Checked(-2);
  Maybe<std::string> level4 = Outermost(-3);
  ASSERT_FALSE(level2.ok());
  ASSERT_FALSE(level3.ok());
  ASSERT_FALSE(level4.ok());

  // The kind and the message stay those of the innermost error.
  EXPECT_EQ(level2.error().kind(), ErrorKind::kValueError);
  EXPECT_EQ(level3.error().kind(), ErrorKind::kValueError);
  EXPECT_EQ(level4.error().kind(), ErrorKind::kValueError);
  EXPECT_EQ(level2.error().message(), "x must be positive, got -1");
  EXPECT_EQ(level3.error().message(), "x must be positive, got -2");
  EXPECT_EQ(level4.error().message(), "x must be positive, got -3");

  EXPECT_EQ(level2.error().context().size(), 2u);
  EXPECT_EQ(level3.error().context().size(), 3u);
  ASSERT_EQ(level4.error().context().size(), 4u);

  // Innermost frame first.
  const std::vector<std::string>& frames = level4.error().context();
  const std::vector<std::string> functions = {"Positive", "Doubled", "Checked", "Outermost"};
  for (size_t i = 0; i < functions.size(); ++i) {
    EXPECT_NE(frames[i].find(functions[i]), std::string::npos)
        << "frame " << i << ": " << frames[i];
  }
}

TEST(MaybeTest, AssignOrReturnAndJustPassValuesThrough) {
  Maybe<int64_t> doubled = Doubled(21);
  ASSERT_TRUE(doubled.ok());
  EXPECT_EQ(doubled.value(), 42);
  EXPECT_TRUE(Checked(1).ok());
  Maybe<std::string> outer = Outermost(5);
  ASSERT_TRUE(outer.ok());
  EXPECT_EQ(outer.value(), "ok");
}

TEST(MaybeTest, MaybeVoid) {
  Maybe<void> ok = Ok();
  EXPECT_TRUE(ok.ok());
  EXPECT_TRUE(static_cast<bool>(ok));
  EXPECT_EQ(ok.error_ptr(), nullptr);

  Maybe<void> failed = Error(ErrorKind::kRuntimeError, "stream failed");
  ASSERT_FALSE(failed.ok());
  EXPECT_FALSE(static_cast<bool>(failed));
  EXPECT_EQ(failed.error().kind(), ErrorKind::kRuntimeError);
  EXPECT_EQ(failed.error().message(), "stream failed");
}

TEST(MaybeTest, ConvertsBetweenValueTypes) {
  Maybe<int64_t> widened = Maybe<int>(7);
  ASSERT_TRUE(widened.ok());
  EXPECT_EQ(widened.value(), 7);

  Maybe<int64_t> failed = Positive(0);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().kind(), ErrorKind::kValueError);
  EXPECT_EQ(failed.error().message(), "x must be positive, got 0");
}

// Reading a Maybe the wrong way is the caller's bug: it aborts naming the error or the misuse,
// through the library's own check (no logging library in the public headers).
TEST(MaybeDeathTest, ReadingTheWrongStateAborts) {
  const Maybe<int> failed = Error(ErrorKind::kValueError, "x: expected 1, got 2");
  EXPECT_DEATH((void)failed.value(),
               "check failed: ok\\(\\): Maybe::value\\(\\) on an error: .*x: expected 1, got 2");
  const Maybe<int> value = 3;
  EXPECT_DEATH((void)value.error(), "Maybe::error\\(\\) on a value");
  EXPECT_DEATH((void)Shape({2, 3}).At(2), "Shape::At\\(2\\) of a rank-2 shape");
}

TEST(ErrorTest, KindNames) {
  EXPECT_STREQ(ErrorKindName(ErrorKind::kValueError), "ValueError");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kTypeError), "TypeError");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kIndexError), "IndexError");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kNotImplemented), "NotImplemented");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kDeviceError), "DeviceError");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kOutOfMemory), "OutOfMemory");
  EXPECT_STREQ(ErrorKindName(ErrorKind::kRuntimeError), "RuntimeError");
}

TEST(ErrorTest, ToStringStartsWithKindAndMessageThenFrames) {
  Maybe<void> result = Checked(-9);
  ASSERT_FALSE(result.ok());
  const std::string text = result.error().ToString();
  const std::string head = "ValueError: x must be positive, got -9";
  EXPECT_EQ(text.rfind(head, 0), 0u) << text;
  // One "at" line per frame, innermost first.
  size_t lines = 0;
  for (size_t pos = text.find("\n  at "); pos != std::string::npos;
       pos = text.find("\n  at ", pos + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, result.error().context().size()) << text;
  EXPECT_LT(text.find("Positive"), text.find("Checked")) << text;

  Error bare(ErrorKind::kTypeError, "no frames");
  EXPECT_EQ(bare.ToString(), "TypeError: no frames");
}

TEST(ErrorTest, AddContextRecordsFunctionFileAndLine) {
  Error error(ErrorKind::kValueError, "m");
  error.AddContext("some/file.cpp", 42, "MyFunction");
  ASSERT_EQ(error.context().size(), 1u);
  EXPECT_NE(error.context()[0].find("MyFunction"), std::string::npos) << error.context()[0];
  EXPECT_NE(error.context()[0].find("some/file.cpp"), std::string::npos) << error.context()[0];
  EXPECT_NE(error.context()[0].find("42"), std::string::npos) << error.context()[0];
}

}  // namespace
}  // namespace oflite
