#pragma once
// A small append-only JSON writer for responses on hot paths: no tree, no per-field allocation.
// Keys are trusted literals; string values are escaped.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mediagen {

void append_json_string(std::string& out, std::string_view text);

class JsonWriter {
 public:
  explicit JsonWriter(std::size_t reserve = 256) { out_.reserve(reserve); }

  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }

  JsonWriter& key(std::string_view k) {
    comma();
    out_ += '"';
    out_ += k;
    out_ += "\":";
    after_key_ = true;
    return *this;
  }
  JsonWriter& value(std::string_view v) {
    comma();
    append_json_string(out_, v);
    return *this;
  }
  JsonWriter& value(const char* v) { return value(std::string_view(v)); }
  JsonWriter& value(std::int64_t v) {
    comma();
    out_ += std::to_string(v);
    return *this;
  }
  JsonWriter& value(bool v) {
    comma();
    out_ += v ? "true" : "false";
    return *this;
  }
  JsonWriter& value(double v);
  JsonWriter& null() {
    comma();
    out_ += "null";
    return *this;
  }
  JsonWriter& value(const std::optional<std::int64_t>& v) { return v ? value(*v) : null(); }
  JsonWriter& value(const std::vector<std::string>& items) {
    begin_array();
    for (const auto& i : items) value(std::string_view(i));
    return end_array();
  }
  // Inserts already serialised JSON.
  JsonWriter& raw(std::string_view json) {
    comma();
    out_ += json;
    return *this;
  }

  template <class T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

  std::string take() { return std::move(out_); }

 private:
  JsonWriter& open(char c) {
    comma();
    out_ += c;
    first_ = true;
    return *this;
  }
  JsonWriter& close(char c) {
    out_ += c;
    first_ = false;
    return *this;
  }
  void comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_) out_ += ',';
    first_ = false;
  }

  std::string out_;
  bool first_ = true;
  bool after_key_ = false;
};

}  // namespace mediagen
