// PEP 508 requirement and marker parsing. A small recursive-descent parser;
// positions are byte offsets into the original text, reported 1-based.
#include "cuwheel/wheel/pep508.h"

#include <algorithm>
#include <cctype>

#include "cuwheel/base/bytes.h"

namespace cuwheel {

namespace {

constexpr int kMaxMarkerDepth = 64;

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}
bool is_space(char c) { return c == ' ' || c == '\t'; }

// The marker variables of the PyPA spec, plus the legacy dotted spellings
// that `packaging` still maps onto them.
std::optional<std::string> canonical_variable(std::string_view name) {
  static const char* kNames[] = {
      "python_version",   "python_full_version",   "os_name",
      "sys_platform",     "platform_release",      "platform_system",
      "platform_version", "platform_machine",      "platform_python_implementation",
      "implementation_name", "implementation_version", "extra",
      "extras",           "dependency_groups",
  };
  for (const char* n : kNames)
    if (name == n) return std::string(name);
  static const std::pair<std::string_view, std::string_view> kAliases[] = {
      {"os.name", "os_name"},
      {"sys.platform", "sys_platform"},
      {"platform.version", "platform_version"},
      {"platform.machine", "platform_machine"},
      {"platform.python_implementation", "platform_python_implementation"},
      {"python_implementation", "platform_python_implementation"},
  };
  for (const auto& [alias, real] : kAliases)
    if (name == alias) return std::string(real);
  return std::nullopt;
}

class Parser {
 public:
  Parser(std::string_view text, size_t base, std::string_view whole)
      : s_(text), base_(base), whole_(whole) {}

  Error error(std::string_view why) const { return error_at(pos_, why); }
  Error error_at(size_t pos, std::string_view why) const {
    return Error("invalid requirement '" + printable(whole_) + "': column " +
                 std::to_string(base_ + pos + 1) + ": " + std::string(why));
  }

  void skip_ws() {
    while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
  }
  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  size_t pos() const { return pos_; }
  void set_pos(size_t p) { pos_ = p; }
  std::string_view rest() const { return s_.substr(std::min(pos_, s_.size())); }

  bool eat(std::string_view tok) {
    if (s_.substr(pos_, tok.size()) != tok) return false;
    pos_ += tok.size();
    return true;
  }
  // A keyword ("and", "or", "in", "not") followed by a non-identifier char.
  bool eat_keyword(std::string_view kw) {
    if (s_.substr(pos_, kw.size()) != kw) return false;
    size_t end = pos_ + kw.size();
    if (end < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_'))
      return false;
    pos_ = end;
    return true;
  }

  // name = [A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?
  std::optional<std::string> name() {
    size_t start = pos_;
    while (pos_ < s_.size() && is_name_char(s_[pos_])) ++pos_;
    std::string_view n = s_.substr(start, pos_ - start);
    if (n.empty()) return std::nullopt;
    if (!is_valid_name(n)) {
      pos_ = start;
      return std::nullopt;
    }
    return std::string(n);
  }

  Expected<MarkerNode> marker_or(int depth) {
    auto first = marker_and(depth);
    if (!first) return first;
    MarkerNode node;
    node.kind = MarkerNode::Kind::kOr;
    node.children.push_back(std::move(*first));
    for (;;) {
      size_t save = pos_;
      skip_ws();
      if (!eat_keyword("or")) {
        pos_ = save;
        break;
      }
      auto next = marker_and(depth);
      if (!next) return next;
      node.children.push_back(std::move(*next));
    }
    if (node.children.size() == 1) return std::move(node.children[0]);
    return node;
  }

  Expected<MarkerNode> marker_and(int depth) {
    auto first = marker_atom(depth);
    if (!first) return first;
    MarkerNode node;
    node.kind = MarkerNode::Kind::kAnd;
    node.children.push_back(std::move(*first));
    for (;;) {
      size_t save = pos_;
      skip_ws();
      if (!eat_keyword("and")) {
        pos_ = save;
        break;
      }
      auto next = marker_atom(depth);
      if (!next) return next;
      node.children.push_back(std::move(*next));
    }
    if (node.children.size() == 1) return std::move(node.children[0]);
    return node;
  }

  Expected<MarkerNode> marker_atom(int depth) {
    skip_ws();
    if (peek() == '(') {
      if (depth >= kMaxMarkerDepth) return error("marker nested too deeply");
      size_t open = pos_++;
      auto inner = marker_or(depth + 1);
      if (!inner) return inner;
      skip_ws();
      if (!eat(")")) return error_at(open, "unbalanced '(' in marker");
      return inner;
    }
    MarkerNode node;
    node.kind = MarkerNode::Kind::kCompare;
    auto lhs = operand();
    if (!lhs) return lhs.error();
    node.lhs = std::move(*lhs);
    skip_ws();
    auto op = marker_op();
    if (!op) return error("expected a marker operator (== != <= >= < > ~= === in, not in)");
    node.op = *op;
    skip_ws();
    auto rhs = operand();
    if (!rhs) return rhs.error();
    node.rhs = std::move(*rhs);
    return node;
  }

  Expected<MarkerNode::Operand> operand() {
    skip_ws();
    MarkerNode::Operand o;
    char q = peek();
    if (q == '"' || q == '\'') {
      size_t open = pos_++;
      size_t end = s_.find(q, pos_);
      if (end == std::string_view::npos) return error_at(open, "unterminated string");
      o.text = std::string(s_.substr(pos_, end - pos_));
      pos_ = end + 1;
      return o;
    }
    size_t start = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' || s_[pos_] == '.'))
      ++pos_;
    std::string_view word = s_.substr(start, pos_ - start);
    if (word.empty()) return error("expected a marker variable or a quoted string");
    auto var = canonical_variable(word);
    if (!var) return error_at(start, "unknown marker variable '" + printable(word) + "'");
    o.is_variable = true;
    o.text = *var;
    return o;
  }

  std::optional<std::string> marker_op() {
    static const char* kOps[] = {"===", "==", "!=", "<=", ">=", "~=", "<", ">"};
    for (const char* op : kOps)
      if (eat(op)) return std::string(op);
    if (eat_keyword("in")) return std::string("in");
    size_t save = pos_;
    if (eat_keyword("not")) {
      size_t before = pos_;
      skip_ws();
      if (pos_ > before && eat_keyword("in")) return std::string("not in");
    }
    pos_ = save;
    return std::nullopt;
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
  size_t base_;
  std::string_view whole_;
};

std::string quote(const std::string& s) {
  char q = s.find('"') == std::string::npos ? '"' : '\'';
  return q + s + q;
}

void node_to_string(const MarkerNode& n, std::string& out, bool in_and) {
  switch (n.kind) {
    case MarkerNode::Kind::kCompare:
      out += n.lhs.is_variable ? n.lhs.text : quote(n.lhs.text);
      out += ' ' + n.op + ' ';
      out += n.rhs.is_variable ? n.rhs.text : quote(n.rhs.text);
      return;
    case MarkerNode::Kind::kAnd:
    case MarkerNode::Kind::kOr: {
      bool is_and = n.kind == MarkerNode::Kind::kAnd;
      bool paren = in_and && !is_and;
      if (paren) out += '(';
      for (size_t i = 0; i < n.children.size(); ++i) {
        if (i) out += is_and ? " and " : " or ";
        node_to_string(n.children[i], out, is_and);
      }
      if (paren) out += ')';
      return;
    }
  }
}

bool eval_compare(const MarkerNode& n, const MarkerEnvironment& env) {
  bool is_extra = (n.lhs.is_variable && n.lhs.text == "extra") ||
                  (n.rhs.is_variable && n.rhs.text == "extra");
  auto value = [&](const MarkerNode::Operand& o) {
    std::string v = o.is_variable ? std::string(env.get(o.text)) : o.text;
    return is_extra ? normalize_name(v) : v;
  };
  std::string lhs = value(n.lhs);
  std::string rhs = value(n.rhs);
  if (n.op == "in") return rhs.find(lhs) != std::string::npos;
  if (n.op == "not in") return rhs.find(lhs) == std::string::npos;
  // Version comparison when the right side makes a valid specifier.
  if (!is_extra) {
    auto spec = Specifier::parse(n.op + rhs);
    if (spec) {
      if (spec->op == Specifier::Op::kArbitrary) return spec->contains_text(lhs);
      auto v = Version::parse(lhs);
      if (!v) return false;
      return spec->contains(*v);
    }
  }
  int c = lhs.compare(rhs);
  if (n.op == "==") return c == 0;
  if (n.op == "!=") return c != 0;
  if (n.op == "<") return c < 0;
  if (n.op == "<=") return c <= 0;
  if (n.op == ">") return c > 0;
  if (n.op == ">=") return c >= 0;
  if (n.op == "===") return c == 0;
  return false;  // ~= on non-versions is undefined; treat as not matching
}

bool eval_node(const MarkerNode& n, const MarkerEnvironment& env) {
  switch (n.kind) {
    case MarkerNode::Kind::kCompare: return eval_compare(n, env);
    case MarkerNode::Kind::kAnd:
      for (const auto& c : n.children)
        if (!eval_node(c, env)) return false;
      return true;
    case MarkerNode::Kind::kOr:
      for (const auto& c : n.children)
        if (eval_node(c, env)) return true;
      return false;
  }
  return false;
}

void collect_extras(const MarkerNode& n, std::set<std::string>& out) {
  if (n.kind != MarkerNode::Kind::kCompare) {
    for (const auto& c : n.children) collect_extras(c, out);
    return;
  }
  if (n.op != "==") return;
  if (n.lhs.is_variable && n.lhs.text == "extra" && !n.rhs.is_variable)
    out.insert(normalize_name(n.rhs.text));
  else if (n.rhs.is_variable && n.rhs.text == "extra" && !n.lhs.is_variable)
    out.insert(normalize_name(n.lhs.text));
}

}  // namespace

std::string normalize_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool in_sep = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (!in_sep) out += '-';
      in_sep = true;
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      in_sep = false;
    }
  }
  return out;
}

bool is_valid_name(std::string_view name) {
  if (name.empty()) return false;
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  if (!alnum(name.front()) || !alnum(name.back())) return false;
  return std::all_of(name.begin(), name.end(), is_name_char);
}

MarkerEnvironment MarkerEnvironment::linux_cpython(std::string_view python_version,
                                                   std::string_view machine) {
  MarkerEnvironment env;
  std::string full(python_version);
  if (std::count(full.begin(), full.end(), '.') < 2) full += ".0";
  env.set("python_version", python_version)
      .set("python_full_version", full)
      .set("os_name", "posix")
      .set("sys_platform", "linux")
      .set("platform_system", "Linux")
      .set("platform_machine", machine)
      .set("platform_python_implementation", "CPython")
      .set("implementation_name", "cpython")
      .set("implementation_version", full);
  return env;
}

MarkerEnvironment& MarkerEnvironment::set(std::string_view name, std::string_view value) {
  values[std::string(name)] = std::string(value);
  return *this;
}

std::string_view MarkerEnvironment::get(std::string_view name) const {
  auto it = values.find(name);
  return it == values.end() ? std::string_view() : std::string_view(it->second);
}

Expected<Marker> Marker::parse(std::string_view text) {
  Parser p(text, 0, text);
  auto root = p.marker_or(0);
  if (!root) return Error(root.error());
  p.skip_ws();
  if (!p.at_end()) return p.error("unexpected text after marker");
  Marker m;
  m.root_ = std::move(*root);
  return m;
}

bool Marker::evaluate(const MarkerEnvironment& env) const { return eval_node(root_, env); }

std::vector<std::string> Marker::extras() const {
  std::set<std::string> out;
  collect_extras(root_, out);
  return std::vector<std::string>(out.begin(), out.end());
}

std::string Marker::to_string() const {
  std::string out;
  node_to_string(root_, out, false);
  return out;
}

Expected<Requirement> Requirement::parse(std::string_view text) {
  Parser p(text, 0, text);
  Requirement r;
  p.skip_ws();
  auto name = p.name();
  if (!name) return p.error("expected a project name");
  r.name = std::move(*name);
  p.skip_ws();
  if (p.peek() == '[') {
    size_t open = p.pos();
    p.eat("[");
    p.skip_ws();
    if (!p.eat("]")) {
      for (;;) {
        p.skip_ws();
        auto extra = p.name();
        if (!extra) return p.error("expected an extra name");
        r.extras.push_back(std::move(*extra));
        p.skip_ws();
        if (p.eat(",")) continue;
        if (p.eat("]")) break;
        if (p.at_end()) return p.error_at(open, "unterminated extras '['");
        return p.error("expected ',' or ']' in extras");
      }
    }
    p.skip_ws();
  }
  if (p.peek() == '@') {
    p.eat("@");
    p.skip_ws();
    size_t start = p.pos();
    while (!p.at_end() && !is_space(p.peek())) p.set_pos(p.pos() + 1);
    std::string url(text.substr(start, p.pos() - start));
    if (url.empty()) return p.error("expected a URL after '@'");
    // A URL may itself contain ';', so the marker must be set off by
    // whitespace: "url;marker" is all URL (PyPA spec, as packaging reads it).
    r.url = std::move(url);
    size_t before = p.pos();
    p.skip_ws();
    if (p.at_end()) return r;
    if (p.peek() != ';') return p.error("expected ';' or end after URL");
    if (p.pos() == before) return p.error("a URL requirement needs whitespace before ';'");
  } else if (p.peek() != ';' && !p.at_end()) {
    size_t start = p.pos();
    std::string_view spec_text;
    if (p.peek() == '(') {
      size_t close = text.find(')', start);
      if (close == std::string_view::npos) return p.error("unbalanced '(' around version specifier");
      spec_text = text.substr(start + 1, close - start - 1);
      p.set_pos(close + 1);
      auto spec = SpecifierSet::parse(spec_text);
      if (!spec) return p.error_at(start + 1, spec.error().message());
      r.specifier = std::move(*spec);
      p.skip_ws();
    } else {
      size_t semi = text.find(';', start);
      size_t end = semi == std::string_view::npos ? text.size() : semi;
      spec_text = text.substr(start, end - start);
      auto spec = SpecifierSet::parse(spec_text);
      if (!spec) return p.error_at(start, spec.error().message());
      r.specifier = std::move(*spec);
      p.set_pos(end);
    }
  }
  if (p.at_end()) return r;
  if (!p.eat(";")) return p.error("expected ';' before a marker, or end of requirement");
  size_t mstart = p.pos();
  Parser mp(text.substr(mstart), mstart, text);
  auto root = mp.marker_or(0);
  if (!root) return root.error();
  mp.skip_ws();
  if (!mp.at_end()) return mp.error("unexpected text after marker");
  Marker m;
  m.root_ = std::move(*root);
  r.marker = std::move(m);
  return r;
}

std::string Requirement::normalized_name() const { return normalize_name(name); }

std::vector<std::string> Requirement::behind_extras() const {
  return marker ? marker->extras() : std::vector<std::string>{};
}

std::string Requirement::to_string() const {
  std::string out = name;
  if (!extras.empty()) {
    out += '[';
    for (size_t i = 0; i < extras.size(); ++i) {
      if (i) out += ',';
      out += extras[i];
    }
    out += ']';
  }
  if (url) {
    out += " @ " + *url;
    if (marker) out += ' ';
  } else {
    out += specifier.to_string();
  }
  if (marker) out += "; " + marker->to_string();
  return out;
}

}  // namespace cuwheel
