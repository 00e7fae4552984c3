#pragma once
#include <optional>
#include <string>
#include <utility>

#include "mediagen/core/api_error.hpp"

namespace mediagen::orders {

// Collects validation failures so one 422 names every bad field.
class FieldErrors {
 public:
  void add(std::string field, Message message) {
    if (!error_) error_ = ApiError::validation(std::move(field), std::move(message));
    else error_->add_field(std::move(field), std::move(message));
  }
  bool empty() const noexcept { return !error_; }
  std::optional<ApiError> take() { return std::move(error_); }

 private:
  std::optional<ApiError> error_;
};

}  // namespace mediagen::orders
