#include "tools/oflite/npy_header.h"

#include <algorithm>
#include <optional>

namespace oflite {
namespace npy {

namespace {

constexpr size_t kMaxDimDigits = 18;  // below int64's 19, so no digit string overflows

// A value of the dict: the only kinds a valid header holds.
struct Value {
  enum class Kind { kString, kBool, kTuple } kind = Kind::kString;
  std::string text;            // kString
  bool flag = false;           // kBool
  std::vector<int64_t> items;  // kTuple
};

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameChar(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

std::string Printable(std::string_view text) {
  constexpr size_t kShown = 200;
  std::string shown(text.substr(0, kShown));
  for (char& c : shown) {
    c = (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return shown + (text.size() > kShown ? "..." : "");
}

class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) {
      ++pos_;
    }
  }
  bool AtEnd() const { return pos_ == text_.size(); }
  // Spaces and tabs, then line ends, then nothing, as NumPy pads a header. Python refuses some
  // other endings (spaces after a newline are an indentation error), so no others are taken.
  bool OnlyLineEndsLeft() {
    while (Take(' ') || Take('\t')) {
    }
    while (Take('\n') || Take('\r')) {
    }
    return AtEnd();
  }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  bool Take(char c) {
    if (Peek() != c || AtEnd()) {
      return false;
    }
    ++pos_;
    return true;
  }
  Maybe<void> Expect(char c, const char* where) {
    SkipSpace();
    OFLITE_CHECK_OR_RETURN(Take(c), ValueError)
        << Fail("expected '" + std::string(1, c) + "' " + where);
    return Ok();
  }
  // "at byte 12 of the header {'descr': ...}".
  std::string Fail(const std::string& what) const {
    return "the .npy header is not valid: " + what + " at byte " + std::to_string(pos_) + " of " +
           Printable(text_);
  }

  Maybe<std::string> String() {
    const char quote = Peek();
    OFLITE_CHECK_OR_RETURN(quote == '\'' || quote == '"', ValueError)
        << Fail("expected a quoted string");
    ++pos_;
    std::string value;
    while (!AtEnd() && Peek() != quote) {
      const char c = Peek();
      OFLITE_CHECK_OR_RETURN(c >= 0x20 && c < 0x7f && c != '\\', ValueError)
          << Fail("unsupported character in a string (escapes, control and non-ASCII bytes)");
      value += c;
      ++pos_;
    }
    OFLITE_CHECK_OR_RETURN(Take(quote), ValueError) << Fail("unterminated string");
    return value;
  }

  // A Python decimal integer literal: 0, 00, 12; not 012 (a syntax error in Python 3).
  Maybe<int64_t> Integer() {
    const size_t begin = pos_;
    while (IsDigit(Peek())) {
      ++pos_;
    }
    const std::string_view digits = text_.substr(begin, pos_ - begin);
    OFLITE_CHECK_OR_RETURN(!digits.empty() && !IsNameChar(Peek()), ValueError)
        << Fail("expected a non-negative decimal integer");
    OFLITE_CHECK_OR_RETURN(digits[0] != '0' || digits.find_first_not_of('0') == digits.npos,
                           ValueError)
        << Fail("an integer with a leading zero");
    OFLITE_CHECK_OR_RETURN(digits.size() <= kMaxDimDigits, ValueError)
        << Fail("dim " + std::string(digits) + " is too large");
    int64_t value = 0;
    for (char c : digits) {
      value = value * 10 + (c - '0');
    }
    return value;
  }

  // (), (3,), (2, 3), (2, 3,): a tuple of integers. (3) is an integer in Python, not a tuple.
  Maybe<std::vector<int64_t>> Tuple() {
    OFLITE_JUST(Expect('(', "to open a tuple"));
    std::vector<int64_t> items;
    bool comma = false;
    for (SkipSpace(); !Take(')'); SkipSpace()) {
      OFLITE_CHECK_OR_RETURN(items.empty() || comma, ValueError)
          << Fail("expected ',' or ')' in a tuple");
      int64_t item = 0;
      OFLITE_ASSIGN_OR_RETURN(item, Integer());
      items.push_back(item);
      SkipSpace();
      comma = Take(',');
    }
    OFLITE_CHECK_OR_RETURN(items.size() != 1 || comma, ValueError)
        << Fail("(N) is an integer, not a tuple (write (N,))");
    return items;
  }

  Maybe<Value> AnyValue() {
    SkipSpace();
    if (Peek() == '\'' || Peek() == '"') {
      std::string text;
      OFLITE_ASSIGN_OR_RETURN(text, String());
      return Value{Value::Kind::kString, text, false, {}};
    }
    if (Peek() == '(') {
      std::vector<int64_t> items;
      OFLITE_ASSIGN_OR_RETURN(items, Tuple());
      return Value{Value::Kind::kTuple, "", false, items};
    }
    for (const bool flag : {true, false}) {
      const std::string_view name = flag ? "True" : "False";
      if (text_.substr(pos_, name.size()) == name &&
          (pos_ + name.size() == text_.size() || !IsNameChar(text_[pos_ + name.size()]))) {
        pos_ += name.size();
        return Value{Value::Kind::kBool, "", flag, {}};
      }
    }
    return OFLITE_ERROR(ValueError) << Fail("expected a string, True, False or a tuple");
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

// The dict's entries, a key given twice keeping its last value.
struct Entries {
  std::optional<Value> descr, fortran_order, shape;
};

// The slot a key fills; the keys are exactly NumPy's three.
Maybe<std::optional<Value>*> Slot(const Cursor& cursor, const std::string& key, Entries* entries) {
  std::optional<Value>* slot = key == "descr"           ? &entries->descr
                               : key == "fortran_order" ? &entries->fortran_order
                               : key == "shape"         ? &entries->shape
                                                        : nullptr;
  OFLITE_CHECK_OR_RETURN(slot != nullptr, ValueError) << cursor.Fail(
      "unexpected key '" + key + "' (the keys are exactly 'descr', 'fortran_order' and 'shape')");
  return slot;
}

Maybe<Entries> Dict(std::string_view text) {
  // Python's literal_eval strips only spaces and tabs before the expression; a newline there
  // is an indentation error.
  const size_t start = std::min(text.find_first_not_of(" \t"), text.size());
  Cursor cursor(text.substr(start));
  OFLITE_CHECK_OR_RETURN(cursor.Take('{'), ValueError)
      << cursor.Fail("expected '{' to open the header dict");
  Entries entries;
  bool first = true;
  for (cursor.SkipSpace(); !cursor.Take('}'); cursor.SkipSpace()) {
    if (!first) {
      OFLITE_CHECK_OR_RETURN(cursor.Take(','), ValueError)
          << cursor.Fail("expected ',' or '}' in the header dict");
      cursor.SkipSpace();
      if (cursor.Take('}')) {  // a trailing comma, as NumPy writes
        break;
      }
    }
    first = false;
    std::string key;
    OFLITE_ASSIGN_OR_RETURN(key, cursor.String());
    std::optional<Value>* slot = nullptr;
    OFLITE_ASSIGN_OR_RETURN(slot, Slot(cursor, key, &entries));
    OFLITE_JUST(cursor.Expect(':', "after a key"));
    Value value;
    OFLITE_ASSIGN_OR_RETURN(value, cursor.AnyValue());
    *slot = std::move(value);  // a repeated key keeps its last value
  }
  OFLITE_CHECK_OR_RETURN(cursor.OnlyLineEndsLeft(), ValueError)
      << cursor.Fail("unexpected text after the header dict");
  return entries;
}

}  // namespace

Maybe<Header> ParseHeader(std::string_view text) {
  Entries entries;
  OFLITE_ASSIGN_OR_RETURN(entries, Dict(text));
  OFLITE_CHECK_OR_RETURN(entries.descr && entries.fortran_order && entries.shape, ValueError)
      << "the .npy header does not hold all of 'descr', 'fortran_order' and 'shape': "
      << Printable(text);
  OFLITE_CHECK_OR_RETURN(entries.descr->kind == Value::Kind::kString, ValueError)
      << "the .npy header's 'descr' is not a dtype string: " << Printable(text);
  OFLITE_CHECK_OR_RETURN(entries.fortran_order->kind == Value::Kind::kBool, ValueError)
      << "the .npy header's 'fortran_order' is not True or False: " << Printable(text);
  OFLITE_CHECK_OR_RETURN(entries.shape->kind == Value::Kind::kTuple, ValueError)
      << "the .npy header's 'shape' is not a tuple of integers: " << Printable(text);
  return Header{entries.descr->text, entries.fortran_order->flag, entries.shape->items};
}

}  // namespace npy
}  // namespace oflite
