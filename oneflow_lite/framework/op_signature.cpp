#include "oneflow_lite/framework/op_signature.h"

#include <cctype>

namespace oflite {

namespace {

// Attribute types by the names a signature may give them: C++'s where it has one, AttrTypeName's
// otherwise; the first of each type is the one OpSignatureToString writes.
struct TypeName {
  const char* name;
  AttrType type;
};
constexpr TypeName kTypeNames[] = {
    {"bool", AttrType::kBool},         {"int64", AttrType::kInt64},
    {"int", AttrType::kInt64},         {"float", AttrType::kFloat},
    {"double", AttrType::kDouble},     {"str", AttrType::kString},
    {"string", AttrType::kString},     {"Shape", AttrType::kShape},
    {"shape", AttrType::kShape},       {"DataType", AttrType::kDataType},
    {"dtype", AttrType::kDataType},    {"int64[]", AttrType::kListInt64},
    {"int[]", AttrType::kListInt64},   {"list_int64", AttrType::kListInt64},
    {"float[]", AttrType::kListFloat}, {"list_float", AttrType::kListFloat},
};

bool IsIdentifierStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool IsIdentifier(const std::string& text) {
  if (text.empty() || !IsIdentifierStart(text[0])) {
    return false;
  }
  for (char c : text) {
    if (!IsIdentifierChar(c)) {
      return false;
    }
  }
  return true;
}

// A cursor over the signature text; every error names the text and where it stopped.
class Reader {
 public:
  explicit Reader(const std::string& text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }
  // Consumes `token` when the text continues with it.
  bool Accept(const std::string& token) {
    SkipSpace();
    if (text_.compare(pos_, token.size(), token) != 0) {
      return false;
    }
    pos_ += token.size();
    return true;
  }
  // Consumes the word `keyword` when the text continues with it as a whole identifier.
  bool AcceptKeyword(const std::string& keyword) {
    SkipSpace();
    const size_t end = pos_ + keyword.size();
    if (text_.compare(pos_, keyword.size(), keyword) != 0 ||
        (end < text_.size() && IsIdentifierChar(text_[end]))) {
      return false;
    }
    pos_ = end;
    return true;
  }
  Maybe<void> Expect(const std::string& token) {
    OFLITE_CHECK_OR_RETURN(Accept(token), ValueError) << Where("'" + token + "'");
    return Ok();
  }
  // An identifier, or empty when none starts here.
  std::string Identifier() {
    SkipSpace();
    const size_t begin = pos_;
    if (pos_ < text_.size() && IsIdentifierStart(text_[pos_])) {
      while (pos_ < text_.size() && IsIdentifierChar(text_[pos_])) {
        ++pos_;
      }
    }
    return text_.substr(begin, pos_ - begin);
  }
  Maybe<std::string> ExpectIdentifier(const std::string& what) {
    std::string name = Identifier();
    OFLITE_CHECK_OR_RETURN(!name.empty(), ValueError) << Where(what);
    return name;
  }
  // A default value's text: a quoted string, a bracketed list, or everything up to ',' or ')'.
  Maybe<std::string> ValueText() {
    SkipSpace();
    const size_t begin = pos_;
    const char open = pos_ < text_.size() ? text_[pos_] : '\0';
    const char close = open == '[' ? ']' : open == '(' ? ')' : open;
    if (open == '\'' || open == '"' || open == '[' || open == '(') {
      const size_t end = text_.find(close, pos_ + 1);
      OFLITE_CHECK_OR_RETURN(end != std::string::npos, ValueError)
          << Where(std::string("a closing ") + close);
      pos_ = end + 1;
      return text_.substr(begin + 1, end - begin - 1);
    }
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != ')') {
      ++pos_;
    }
    size_t end = pos_;
    while (end > begin && std::isspace(static_cast<unsigned char>(text_[end - 1]))) {
      --end;
    }
    return text_.substr(begin, end - begin);
  }
  std::string Where(const std::string& expected) const {
    return "op signature '" + text_ + "': expected " + expected + " at position " +
           std::to_string(pos_) + (pos_ < text_.size() ? " ('" + text_.substr(pos_) + "')" : "");
  }

 private:
  const std::string& text_;
  size_t pos_ = 0;
};

Maybe<AttrType> ReadType(Reader& in) {
  std::string name = in.Identifier();
  if (in.Accept("[]")) {
    name += "[]";
  }
  for (const TypeName& t : kTypeNames) {
    if (name == t.name) {
      return t.type;
    }
  }
  std::string known;
  for (const TypeName& t : kTypeNames) {
    known += (known.empty() ? "" : ", ") + std::string(t.name);
  }
  return Error(ErrorKind::kValueError, in.Where("Tensor or an attribute type (" + known + ")") +
                                           (name.empty() ? "" : ", got '" + name + "'"));
}

// The text between the brackets of a list or shape default as ParseAttrValue reads lists:
// "2, 0, 1" as "2,0,1", and a 1-D shape's "(4,)" as "4".
std::string AsListText(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) {
      out += c;
    }
  }
  if (!out.empty() && out.back() == ',') {
    out.pop_back();
  }
  return out;
}

Maybe<void> ReadParameter(Reader& in, OpSignature* signature) {
  if (in.AcceptKeyword("Tensor")) {
    std::string name;
    OFLITE_ASSIGN_OR_RETURN(name, in.ExpectIdentifier("the name of a Tensor parameter"));
    signature->inputs.push_back(name);
    return Ok();
  }
  AttrDef attr;
  OFLITE_ASSIGN_OR_RETURN(attr.type, ReadType(in));
  OFLITE_ASSIGN_OR_RETURN(attr.name, in.ExpectIdentifier("the attribute's name"));
  if (in.Accept("=")) {
    std::string text;
    OFLITE_ASSIGN_OR_RETURN(text, in.ValueText());
    const bool is_list = attr.type == AttrType::kShape || attr.type == AttrType::kListInt64 ||
                         attr.type == AttrType::kListFloat;
    const Maybe<AttrValue> value = ParseAttrValue(attr.type, is_list ? AsListText(text) : text);
    OFLITE_CHECK_OR_RETURN(value.ok(), ValueError)
        << in.Where("a default for '" + attr.name + "'") << ": " << value.error().message();
    attr.default_value = value.value();
  }
  signature->attrs.push_back(std::move(attr));
  return Ok();
}

Maybe<void> ReadParameters(Reader& in, OpSignature* signature) {
  OFLITE_JUST(in.Expect("("));
  if (in.Accept(")")) {
    return Ok();
  }
  do {
    OFLITE_JUST(ReadParameter(in, signature));
  } while (in.Accept(","));
  return in.Expect(")");
}

Maybe<void> ReadResults(Reader& in, OpSignature* signature) {
  OFLITE_JUST(in.Expect("->"));
  const bool list = in.Accept("(");
  std::vector<std::string> names;
  if (!list || !in.Accept(")")) {  // "-> ()": no outputs
    do {
      OFLITE_CHECK_OR_RETURN(in.AcceptKeyword("Tensor"), ValueError) << in.Where("a Tensor result");
      names.push_back(in.Identifier());
    } while (list && in.Accept(","));
    if (list) {
      OFLITE_JUST(in.Expect(")"));
    }
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) {
      names[i] = names.size() == 1 ? "out" : "out" + std::to_string(i);
    }
  }
  signature->outputs = std::move(names);
  return Ok();
}

// Every argument name once: inputs, outputs and attributes share the op's namespace of names.
Maybe<void> CheckNamesDistinct(const OpSignature& signature, const std::string& text) {
  std::vector<std::string> names = signature.inputs;
  names.insert(names.end(), signature.outputs.begin(), signature.outputs.end());
  for (const AttrDef& attr : signature.attrs) {
    names.push_back(attr.name);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      OFLITE_CHECK_OR_RETURN(names[i] != names[j], ValueError)
          << "op signature '" << text << "': the name '" << names[i] << "' is used twice";
    }
  }
  return Ok();
}

// A default as ParseOpSignature reads it back: strings in quotes they do not contain.
std::string DefaultText(const AttrValue& value) {
  if (const auto* text = value.TryGet<std::string>()) {
    const char quote = text->find('\'') == std::string::npos ? '\'' : '"';
    return quote + *text + quote;
  }
  return AttrValueToString(value);
}

std::string TypeNameOf(AttrType type) {
  for (const TypeName& t : kTypeNames) {
    if (t.type == type) {
      return t.name;
    }
  }
  return AttrTypeName(type);
}

}  // namespace

Maybe<OpSignature> ParseOpSignature(const std::string& text) {
  Reader in(text);
  OpSignature signature;
  OFLITE_ASSIGN_OR_RETURN(signature.name, in.ExpectIdentifier("the op's name"));
  if (in.Accept(".")) {
    std::string name;
    OFLITE_ASSIGN_OR_RETURN(name, in.ExpectIdentifier("the op's name after its namespace"));
    signature.name += "." + name;
  }
  OFLITE_JUST(ReadParameters(in, &signature));
  OFLITE_JUST(ReadResults(in, &signature));
  OFLITE_CHECK_OR_RETURN(in.AtEnd(), ValueError) << in.Where("the end");
  OFLITE_JUST(CheckNamesDistinct(signature, text));
  return signature;
}

std::string OpSignatureToString(const OpSignature& signature) {
  std::string text = signature.name + "(";
  std::string sep;
  for (const std::string& input : signature.inputs) {
    text += sep + "Tensor " + input;
    sep = ", ";
  }
  for (const AttrDef& attr : signature.attrs) {
    text += sep + TypeNameOf(attr.type) + " " + attr.name;
    if (attr.default_value.has_value()) {
      text += "=" + DefaultText(*attr.default_value);
    }
    sep = ", ";
  }
  text += ") -> ";
  const bool list = signature.outputs.size() != 1;
  text += list ? "(" : "";
  for (size_t i = 0; i < signature.outputs.size(); ++i) {
    text += (i ? ", Tensor " : "Tensor ") + signature.outputs[i];
  }
  return text + (list ? ")" : "");
}

Maybe<void> CheckOpName(const std::string& name) {
  const size_t dot = name.find('.');
  const bool ok = dot == std::string::npos
                      ? IsIdentifier(name)
                      : IsIdentifier(name.substr(0, dot)) && IsIdentifier(name.substr(dot + 1));
  OFLITE_CHECK_OR_RETURN(ok, ValueError)
      << "'" << name
      << "' is not an op name: expected an identifier, or a namespace and an identifier joined "
         "by '.' (e.g. 'softmax', 'myns.rms_norm')";
  return Ok();
}

std::string OpNamespace(const std::string& name) {
  const size_t dot = name.find('.');
  return dot == std::string::npos ? std::string() : name.substr(0, dot);
}

}  // namespace oflite
