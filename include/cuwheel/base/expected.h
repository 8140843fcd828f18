// cuwheel: result types shared by every reader.
//
// The library never throws across its boundary and never prints. A function
// that can fail on bad input returns Expected<T>: either a value or an Error
// whose message names what was being read ("libfoo.so: .nv_fatbin: container
// at 0x1a40: entry at 0x1a50: header_size 0x10 < 0x40"). Callers add context
// on the way up with Error::context(), so the final text reads outermost
// first, as LLVM's FileError does.
//
// Non-fatal oddities (a fatbin entry of an unknown kind, a wrapper whose data
// pointer is symbolic) are not errors: readers report them to a
// WarningSink, which deduplicates and never aborts the parse.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace cuwheel {

/// A parse or I/O failure with a human-readable, context-carrying message.
class Error {
 public:
  explicit Error(std::string message) : message_(std::move(message)) {}

  /// The full message, outermost context first.
  const std::string& message() const { return message_; }

  /// Returns a copy whose message is "prefix: <old message>".
  Error context(const std::string& prefix) const {
    return Error(prefix + ": " + message_);
  }

 private:
  std::string message_;
};

/// Formats v as "0x" followed by lowercase hex digits (for offsets in messages).
std::string hex(uint64_t v);

/// Either a T or an Error. Test with `if (!r)`, read with `*r` / `r->`.
template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}   // NOLINT: implicit by design
  Expected(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  explicit operator bool() const { return v_.index() == 0; }
  bool has_value() const { return v_.index() == 0; }

  T& operator*() & { return std::get<0>(v_); }
  const T& operator*() const& { return std::get<0>(v_); }
  T&& operator*() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }

  /// The error; only valid when !has_value().
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

/// Value type for Expected results that carry no data.
struct Ok {};
using Status = Expected<Ok>;

/// Receives non-fatal problems found while reading. Messages are
/// deduplicated: the same text is delivered once per sink.
class WarningSink {
 public:
  using Handler = std::function<void(const std::string&)>;
  WarningSink() = default;
  explicit WarningSink(Handler h) : handler_(std::move(h)) {}

  void warn(const std::string& message) {
    if (seen_.insert(message).second) {
      messages_.push_back(message);
      if (handler_) handler_(message);
    }
  }
  const std::vector<std::string>& messages() const { return messages_; }

 private:
  Handler handler_;
  std::set<std::string> seen_;
  std::vector<std::string> messages_;
};

}  // namespace cuwheel
