// The demo catalogue as data (its upsert is in catalogue_seed_store.cpp).
#include <nlohmann/json.hpp>
#include "mediagen/core/json_text.hpp"

#include "mediagen/templates/seed.hpp"

namespace mediagen::templates {
namespace {

// Names of the languages the speech voices speak (primary subtags), plus zh.
constexpr LanguageRow kDemoLanguages[] = {
    {"af", "Afrikaans", "Африкаанс"},
    {"am", "Amharic", "Амхарский"},
    {"an", "Aragonese", "Арагонский"},
    {"ar", "Arabic", "Арабский"},
    {"as", "Assamese", "Ассамский"},
    {"az", "Azerbaijani", "Азербайджанский"},
    {"ba", "Bashkir", "Башкирский"},
    {"be", "Belarusian", "Белорусский"},
    {"bg", "Bulgarian", "Болгарский"},
    {"bn", "Bengali", "Бенгальский"},
    {"bpy", "Bishnupriya Manipuri", "Бишнуприя-манипури"},
    {"bs", "Bosnian", "Боснийский"},
    {"ca", "Catalan", "Каталанский"},
    {"chr", "Cherokee", "Чероки"},
    {"cmn", "Mandarin Chinese", "Китайский (путунхуа)"},
    {"cs", "Czech", "Чешский"},
    {"cv", "Chuvash", "Чувашский"},
    {"cy", "Welsh", "Валлийский"},
    {"da", "Danish", "Датский"},
    {"de", "German", "Немецкий"},
    {"el", "Greek", "Греческий"},
    {"en", "English", "Английский"},
    {"eo", "Esperanto", "Эсперанто"},
    {"es", "Spanish", "Испанский"},
    {"et", "Estonian", "Эстонский"},
    {"eu", "Basque", "Баскский"},
    {"fa", "Persian", "Персидский"},
    {"fi", "Finnish", "Финский"},
    {"fr", "French", "Французский"},
    {"ga", "Irish", "Ирландский"},
    {"gd", "Scottish Gaelic", "Шотландский гэльский"},
    {"gn", "Guarani", "Гуарани"},
    {"grc", "Ancient Greek", "Древнегреческий"},
    {"gu", "Gujarati", "Гуджарати"},
    {"hak", "Hakka Chinese", "Китайский (хакка)"},
    {"haw", "Hawaiian", "Гавайский"},
    {"he", "Hebrew", "Иврит"},
    {"hi", "Hindi", "Хинди"},
    {"hr", "Croatian", "Хорватский"},
    {"ht", "Haitian Creole", "Гаитянский креольский"},
    {"hu", "Hungarian", "Венгерский"},
    {"hy", "Armenian", "Армянский"},
    {"hyw", "Western Armenian", "Западноармянский"},
    {"ia", "Interlingua", "Интерлингва"},
    {"id", "Indonesian", "Индонезийский"},
    {"io", "Ido", "Идо"},
    {"is", "Icelandic", "Исландский"},
    {"it", "Italian", "Итальянский"},
    {"ja", "Japanese", "Японский"},
    {"jbo", "Lojban", "Ложбан"},
    {"ka", "Georgian", "Грузинский"},
    {"kk", "Kazakh", "Казахский"},
    {"kl", "Greenlandic", "Гренландский"},
    {"kn", "Kannada", "Каннада"},
    {"ko", "Korean", "Корейский"},
    {"kok", "Konkani", "Конкани"},
    {"ku", "Kurdish", "Курдский"},
    {"ky", "Kyrgyz", "Киргизский"},
    {"la", "Latin", "Латинский"},
    {"lb", "Luxembourgish", "Люксембургский"},
    {"lfn", "Lingua Franca Nova", "Лингва франка нова"},
    {"lt", "Lithuanian", "Литовский"},
    {"ltg", "Latgalian", "Латгальский"},
    {"lv", "Latvian", "Латышский"},
    {"mi", "Maori", "Маори"},
    {"mk", "Macedonian", "Македонский"},
    {"ml", "Malayalam", "Малаялам"},
    {"mr", "Marathi", "Маратхи"},
    {"ms", "Malay", "Малайский"},
    {"mt", "Maltese", "Мальтийский"},
    {"my", "Burmese", "Бирманский"},
    {"nb", "Norwegian Bokmål", "Норвежский (букмол)"},
    {"nci", "Classical Nahuatl", "Классический науатль"},
    {"ne", "Nepali", "Непальский"},
    {"nl", "Dutch", "Нидерландский"},
    {"nog", "Nogai", "Ногайский"},
    {"om", "Oromo", "Оромо"},
    {"or", "Odia", "Ория"},
    {"pa", "Punjabi", "Панджаби"},
    {"pap", "Papiamento", "Папьяменто"},
    {"piqd", "Klingon", "Клингонский"},
    {"pl", "Polish", "Польский"},
    {"pt", "Portuguese", "Португальский"},
    {"py", "Pyash", "Пьяш"},
    {"qdb", "Belter", "Белтерский"},
    {"qu", "Quechua", "Кечуа"},
    {"quc", "K'iche'", "Киче"},
    {"qya", "Quenya", "Квенья"},
    {"ro", "Romanian", "Румынский"},
    {"ru", "Russian", "Русский"},
    {"sd", "Sindhi", "Синдхи"},
    {"shn", "Shan", "Шанский"},
    {"si", "Sinhala", "Сингальский"},
    {"sjn", "Sindarin", "Синдарин"},
    {"sk", "Slovak", "Словацкий"},
    {"sl", "Slovenian", "Словенский"},
    {"smj", "Lule Sami", "Луле-саамский"},
    {"sq", "Albanian", "Албанский"},
    {"sr", "Serbian", "Сербский"},
    {"sv", "Swedish", "Шведский"},
    {"sw", "Swahili", "Суахили"},
    {"ta", "Tamil", "Тамильский"},
    {"te", "Telugu", "Телугу"},
    {"th", "Thai", "Тайский"},
    {"tk", "Turkmen", "Туркменский"},
    {"tn", "Tswana", "Тсвана"},
    {"tr", "Turkish", "Турецкий"},
    {"tt", "Tatar", "Татарский"},
    {"ug", "Uyghur", "Уйгурский"},
    {"uk", "Ukrainian", "Украинский"},
    {"ur", "Urdu", "Урду"},
    {"uz", "Uzbek", "Узбекский"},
    {"vi", "Vietnamese", "Вьетнамский"},
    {"yue", "Cantonese", "Кантонский"},
    {"zh", "Chinese", "Китайский"},
};

// Languages of the fast fourth-generation model: a smaller set than the multilingual ones.
const std::vector<std::string> kFlashLanguages{"de", "en", "es", "fr", "hi", "it", "ja", "ko",
                                               "nl", "pl", "pt", "ru", "sv", "tr", "uk"};

}  // namespace

const std::vector<SeedService>& demo_services() {
  static const std::vector<SeedService> services{
      {"provider_a", ServiceKind::tts, "Provider A", CapacityUnit::chars,
       {{"a-multilingual-v2", "Multilingual v2", 2, 5000, 180, {}},
        {"a-v3", "v3", 3, 5000, 150, {}},
        {"a-v3-turbo", "v3 Turbo", 3, 5000, 90, {}},
        {"a-v4", "v4", 4, 3000, 240, {}},
        {"a-v4-flash", "v4 Flash", 4, 3000, 60, kFlashLanguages}}},
      {"provider_b", ServiceKind::tts, "Provider B", CapacityUnit::chars,
       {{"b-standard", "Standard", 1, 3000, 40, {}}}},
      {"provider_c", ServiceKind::tts, "Provider C", CapacityUnit::chars,
       {{"c-one", "One", 1, 2000, 50, {}},
        {"c-two", "Two", 1, 2000, 100, {}},
        {"c-three", "Three", 1, 2000, 160, {}}}},
      {"provider_d", ServiceKind::tts, "Provider D", CapacityUnit::utf8_bytes,
       {{"d-base", "Base", 1, 4000, 70, {}}}},
      // Template-less services. Sound effects and music bill one token per started second of
      // each file they make; capacity is the longest file, in seconds.
      {"sfx", ServiceKind::sfx, "Sound effects", CapacityUnit::seconds,
       {{"sfx-procedural", "Procedural", 1, 22, 2000, {}}}},
      {"music", ServiceKind::music, "Music", CapacityUnit::seconds,
       {{"music-composer", "Composer", 1, 300, 1000, {}}}},
      // One flat price per search whatever the sample's length: one token per order, so the
      // price per 1,000 tokens is a thousand searches (50 minor units each).
      {"voice_search", ServiceKind::voice_search, "Voice search", CapacityUnit::searches,
       {{"voice-search", "Voice search", 1, 1, 50000, {}}}},
  };
  return services;
}

std::string_view russian_service_name(std::string_view key) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"provider_a", "Провайдер A"}, {"provider_b", "Провайдер B"},     {"provider_c", "Провайдер C"},
      {"provider_d", "Провайдер D"}, {"sfx", "Звуковые эффекты"},       {"music", "Музыка"},
      {"voice_search", "Поиск голоса"}};
  for (const auto& [k, name] : kNames) {
    if (k == key) return name;
  }
  return {};
}

std::vector<std::string> all_settings() {
  return {std::string(kStability), std::string(kSimilarityBoost), std::string(kUseSpeakerBoost), std::string(kSpeed)};
}

std::vector<std::string> basic_settings(std::string_view service_key, int generation) {
  if (service_key == "provider_a" && generation == 3) return {std::string(kStability)};
  if (service_key == "provider_a" && generation >= 4) return {std::string(kStability), std::string(kSimilarityBoost)};
  return all_settings();
}

std::string default_settings_schema_json() {
  nlohmann::ordered_json schema = {
      {"stability", {{"type", "number"}, {"min", 0.0}, {"max", 1.0}, {"default", 0.5}}},
      {"similarity_boost", {{"type", "number"}, {"min", 0.0}, {"max", 1.0}, {"default", 0.75}}},
      {"use_speaker_boost", {{"type", "boolean"}, {"default", true}}},
      {"speed", {{"type", "number"}, {"min", 0.7}, {"max", 1.2}, {"default", 1.0}}},
  };
  return to_json_text(schema);
}

std::span<const LanguageRow> demo_languages() { return kDemoLanguages; }

}  // namespace mediagen::templates
