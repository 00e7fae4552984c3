#include <gtest/gtest.h>

#include <string>

#include "mediagen/core/api_error.hpp"
#include "mediagen/core/message.hpp"

namespace mediagen {
namespace {

constexpr int kLastReason = static_cast<int>(Reason::service_maintenance);

TEST(MessageCatalogue, HasAnEnglishAndARussianTextForEveryReason) {
  for (int i = 1; i <= kLastReason; ++i) {
    const auto reason = static_cast<Reason>(i);
    const std::string name(to_string(reason));
    ASSERT_FALSE(name.empty()) << "reason #" << i << " has no name";
    const Message message{"errors." + name};
    const std::string en = render(message, Locale::en);
    const std::string ru = render(message, Locale::ru);
    EXPECT_NE(en, message.key) << "no English text for " << name;
    EXPECT_NE(ru, message.key) << "no Russian text for " << name;
    EXPECT_NE(en, ru) << "the Russian text of " << name << " is the English one";
  }
}

TEST(MessageCatalogue, NamesEveryReasonDistinctly) {
  for (int i = 1; i <= kLastReason; ++i) {
    for (int j = i + 1; j <= kLastReason; ++j) {
      EXPECT_NE(to_string(static_cast<Reason>(i)), to_string(static_cast<Reason>(j)));
    }
  }
  EXPECT_EQ(to_string(Reason::none), "");
}

TEST(MessageCatalogue, HasBothTextsForEveryMessageAnApiErrorCarries) {
  const std::vector<ApiError> errors{
      ApiError::api_key_missing(),       ApiError::api_key_invalid(),
      ApiError::api_key_expired(),       ApiError::permission_denied("profile.read"),
      ApiError::forbidden(),             ApiError::not_found(),
      ApiError::method_not_allowed("GET"), ApiError::payload_too_large(),
      ApiError::header_too_large(),      ApiError::bad_request(),
      ApiError::unsupported_media_type(), ApiError::internal_error("x"),
      ApiError::unavailable("x"),        ApiError::rate_limited(3),
      ApiError::ip_banned(TimePoint{}, 1, 1, {300}),  ApiError::too_many_unknown_keys(7),
      ApiError::endpoint_not_found("GET", "/x", "d", "v", 1, 20, 10),
  };
  for (const auto& e : errors) {
    EXPECT_NE(render(e.message, Locale::en), e.message.key);
    EXPECT_NE(render(e.message, Locale::ru), e.message.key);
  }
  for (const char* key : {"ok", "validation.invalid_json", "validation.too_deep", "errors.ban_warning"}) {
    EXPECT_NE(render(Message{key}, Locale::en), key);
    EXPECT_NE(render(Message{key}, Locale::ru), key);
  }
}

TEST(MessageCatalogue, RendersAnUnknownKeyAsTheKeyItself) {
  EXPECT_EQ(render(Message{"errors.no_such_thing"}, Locale::en), "errors.no_such_thing");
  EXPECT_EQ(render(Message{""}, Locale::ru), "");
}

TEST(MessageCatalogue, RendersTheAuthenticationTextsOfTheSpec) {
  EXPECT_EQ(render(Message{"auth.api_key.missing"}, Locale::en),
            "API key is missing: send it in the X-API-KEY header.");
  EXPECT_EQ(render(Message{"auth.api_key.missing"}, Locale::ru),
            "API-ключ не передан: отправьте его в заголовке X-API-KEY.");
  EXPECT_EQ(render(Message{"auth.api_key.invalid"}, Locale::en), "API key is invalid.");
  EXPECT_EQ(render(Message{"auth.api_key.invalid"}, Locale::ru), "API-ключ недействителен.");
  EXPECT_EQ(render(Message{"auth.api_key.expired"}, Locale::en), "API key has expired.");
  EXPECT_EQ(render(Message{"auth.api_key.expired"}, Locale::ru), "Срок действия API-ключа истёк.");
}

TEST(MessageCatalogue, SubstitutesNamedParameters) {
  const Message m{"auth.permission_denied", {{"permission", "orders.write"}}};
  EXPECT_EQ(render(m, Locale::en), "This API key lacks the orders.write permission.");
  EXPECT_EQ(render(m, Locale::ru), "У этого API-ключа нет разрешения orders.write.");
}

TEST(MessageCatalogue, SubstitutesEveryParameterOfTheBanWarning) {
  const Message m{"errors.ban_warning", {{"left", "7"}, {"threshold", "20"}, {"minutes", "10"}}};
  const std::string en = render(m, Locale::en);
  EXPECT_NE(en.find("7 of 20"), std::string::npos) << en;
  EXPECT_NE(en.find("10 minutes"), std::string::npos) << en;
  EXPECT_EQ(en.find(":left"), std::string::npos) << en;
  const std::string ru = render(m, Locale::ru);
  EXPECT_NE(ru.find("7 из 20"), std::string::npos) << ru;
  EXPECT_EQ(ru.find(":left"), std::string::npos) << ru;
  EXPECT_EQ(ru.find(":minutes"), std::string::npos) << ru;
}

TEST(MessageCatalogue, DoesNotExpandParameterValuesAgain) {
  const Message m{"auth.permission_denied", {{"permission", ":permission"}}};
  EXPECT_EQ(render(m, Locale::en), "This API key lacks the :permission permission.");
}

TEST(ParseLocale, ReadsRussianInItsUsualSpellings) {
  for (const char* h : {"ru", "RU", "Ru", "ru-RU", "ru_RU", "ru-ru", "RU_ru", "ru-"}) {
    EXPECT_EQ(parse_locale(h), Locale::ru) << h;
  }
}

TEST(ParseLocale, ReadsEnglishInItsUsualSpellings) {
  for (const char* h : {"en", "EN", "en-US", "en_US", "en-GB"}) EXPECT_EQ(parse_locale(h), Locale::en) << h;
}

TEST(ParseLocale, FallsBackToEnglishForAnythingElse) {
  for (const char* h : {"", "r", "rus", "russian", "ruRU", "fr", "de-DE", " ru", "ru,en", "*", "uk"}) {
    EXPECT_EQ(parse_locale(h), Locale::en) << "'" << h << "'";
  }
}

TEST(ParseLocale, NamesLocalesByTheirCode) {
  EXPECT_EQ(locale_code(Locale::en), "en");
  EXPECT_EQ(locale_code(Locale::ru), "ru");
}

}  // namespace
}  // namespace mediagen
