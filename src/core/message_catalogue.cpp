#include <algorithm>
#include <array>
#include <string_view>

#include "mediagen/core/ascii.hpp"
#include "mediagen/core/message.hpp"

namespace mediagen {
namespace {

struct Entry {
  std::string_view key;
  std::string_view en;
  std::string_view ru;
};

// Sorted by key: looked up with a binary search. Parameters are written ":name".
constexpr std::array kCatalogue = std::to_array<Entry>({
    {"auth.api_key.expired", "API key has expired.", "Срок действия API-ключа истёк."},
    {"auth.api_key.invalid", "API key is invalid.", "API-ключ недействителен."},
    {"auth.api_key.missing", "API key is missing: send it in the X-API-KEY header.",
     "API-ключ не передан: отправьте его в заголовке X-API-KEY."},
    {"auth.bearer.missing", "API key is missing: send it as Authorization: Bearer <key>.",
     "API-ключ не передан: отправьте его в заголовке Authorization: Bearer <ключ>."},
    {"auth.permission_denied", "This API key lacks the :permission permission.",
     "У этого API-ключа нет разрешения :permission."},
    {"clones.archived", "Voice clone archived.", "Клон голоса перемещён в архив."},
    {"clones.created", "Voice clone created; it is being analysed.", "Клон голоса создан и анализируется."},
    {"clones.retried", "Voice clone queued for another analysis.", "Клон голоса поставлен на повторный анализ."},
    {"errors.active_retry_exists", "A retry of this chunk is already running.",
     "Повтор этого фрагмента уже выполняется."},
    {"errors.bad_request", "The request is malformed.", "Некорректный запрос."},
    {"errors.ban_warning",
     "Repeated requests to unknown endpoints lead to a temporary IP ban: :left of :threshold "
     "allowed misses in :minutes minutes are left.",
     "Повторные запросы к несуществующим адресам ведут к временной блокировке IP: осталось "
     ":left из :threshold допустимых промахов за :minutes мин."},
    {"errors.concurrency_limit_exceeded",
     "Too many orders are running at once; wait for running orders to finish.",
     "Слишком много одновременно выполняемых заказов; дождитесь их завершения."},
    {"errors.content_blocked", "The content was rejected by the content policy.",
     "Содержимое отклонено правилами контента."},
    {"errors.endpoint_not_found", "The requested endpoint does not exist.",
     "Запрошенный адрес не существует."},
    {"errors.forbidden", "Access to this object is denied.", "Доступ к этому объекту запрещён."},
    {"errors.generative_not_supported", "Sound effects and music cannot be retried per chunk.",
     "Звуковые эффекты и музыку нельзя повторять по фрагментам."},
    {"errors.gift_code_cancel_window_expired", "The cancellation window of this code has passed.",
     "Срок отмены этого кода истёк."},
    {"errors.gift_code_not_cancellable", "This code is already redeemed or cancelled.",
     "Этот код уже активирован или отменён."},
    {"errors.gift_code_not_found", "Gift code not found.", "Подарочный код не найден."},
    {"errors.header_too_large", "Request header fields are too large.",
     "Заголовки запроса слишком велики."},
    {"errors.idempotency_key_reused", "This Idempotency-Key was already used with a different request.",
     "Этот Idempotency-Key уже использован с другим запросом."},
    {"errors.input_expired", "The text of this chunk has been removed by retention; send a new text.",
     "Текст фрагмента удалён по сроку хранения; отправьте новый текст."},
    {"errors.insufficient_allowance", "Pay-as-you-go is not available for this service.",
     "Оплата по факту недоступна для этого сервиса."},
    {"errors.insufficient_balance", "Not enough money on the balance.",
     "Недостаточно средств на балансе."},
    {"errors.insufficient_funds", "This chunk has no locked funds left.",
     "У этого фрагмента не осталось зарезервированных средств."},
    {"errors.internal", "Internal server error.", "Внутренняя ошибка сервера."},
    {"errors.invalid_order_status", "The order status does not allow this action.",
     "Статус заказа не позволяет это действие."},
    {"errors.invalid_status", "The chunk status does not allow this action.",
     "Статус фрагмента не позволяет это действие."},
    {"errors.ip_banned", "Your IP address is temporarily banned after repeated requests to unknown endpoints.",
     "Ваш IP-адрес временно заблокирован из-за повторных запросов к несуществующим адресам."},
    {"errors.limit_exceeded", "The subscription usage limit is reached.",
     "Достигнут лимит использования подписки."},
    {"errors.link_expired", "This download link has expired; request a new one.",
     "Срок действия ссылки для скачивания истёк; запросите новую."},
    {"errors.link_invalid", "This download link is invalid.", "Ссылка для скачивания недействительна."},
    {"errors.max_attempts_reached", "The maximum number of attempts for this chunk is reached.",
     "Достигнуто максимальное число попыток для фрагмента."},
    {"errors.method_not_allowed", "Method not allowed.", "Метод не поддерживается."},
    {"errors.no_subscription", "This action needs an active subscription.",
     "Для этого действия нужна активная подписка."},
    {"errors.not_found", "Not found.", "Не найдено."},
    {"errors.not_reseller", "This account has no reseller profile.",
     "У этой учётной записи нет профиля реселлера."},
    {"errors.nothing_to_retry", "There are no failed chunks to retry.",
     "Нет неудавшихся фрагментов для повтора."},
    {"errors.order_not_cancellable", "Only created, pending or partially completed orders can be cancelled.",
     "Отменить можно только созданный, ожидающий или частично выполненный заказ."},
    {"errors.path_invalid", "The request path is not valid UTF-8 text.",
     "Путь запроса не является корректным текстом UTF-8."},
    {"errors.payg_topup_required", "Confirm the pay-as-you-go top-up to continue.",
     "Подтвердите доплату с баланса, чтобы продолжить."},
    {"errors.payload_too_large", "Request body is too large.", "Тело запроса слишком велико."},
    {"errors.policy_cooldown_active", "Creation is paused after repeated policy-blocked tasks.",
     "Создание приостановлено после повторных заблокированных задач."},
    {"errors.quote_mismatch", "The top-up quote is stale; request a fresh one.",
     "Предложение доплаты устарело; запросите новое."},
    {"errors.range_not_satisfiable", "The requested range is outside the file.",
     "Запрошенный диапазон выходит за пределы файла."},
    {"errors.rate_limit_exceeded", "Too many requests for this API key.",
     "Слишком много запросов для этого API-ключа."},
    {"errors.request_timeout", "The request body did not arrive in time and was dropped; send the request again.",
     "Тело запроса не пришло вовремя и отброшено; отправьте запрос снова."},
    {"errors.retry_config_outdated", "The order settings no longer pass the service schema; create a new order.",
     "Настройки заказа больше не проходят схему сервиса; создайте новый заказ."},
    {"errors.service_maintenance", "Work intake is paused for maintenance; retry later.",
     "Приём задач приостановлен на обслуживание; повторите позже."},
    {"errors.service_not_found", "This service cannot be ordered.", "Этот сервис нельзя заказать."},
    {"errors.source_file_required", "An audio file is required.", "Требуется аудиофайл."},
    {"errors.source_file_unsupported", "The file is not a supported audio file.",
     "Файл не является поддерживаемым аудиофайлом."},
    {"errors.stitch_in_progress", "The result is being assembled; repeat in a few seconds.",
     "Результат собирается; повторите через несколько секунд."},
    {"errors.template_access_denied", "This template is not available to the account.",
     "Этот шаблон недоступен учётной записи."},
    {"errors.template_model_outdated", "The template carries settings of a former service schema.",
     "Шаблон содержит настройки устаревшей схемы сервиса."},
    {"errors.text_over_capacity", "The text exceeds the chunk capacity.",
     "Текст превышает ёмкость фрагмента."},
    {"errors.token_quota_exceeded", "The token quota of this API key is exhausted.",
     "Квота токенов этого API-ключа исчерпана."},
    {"errors.token_window_exceeded", "The token limit of this API key for the current period is reached.",
     "Лимит токенов этого API-ключа на текущий период исчерпан."},
    {"errors.too_many_unknown_keys", "Too many unknown API keys from your address; retry after the time given.",
     "Слишком много несуществующих API-ключей с вашего адреса; повторите после указанного времени."},
    {"errors.too_many_uploads", "This API key already has as many uploads in progress as it may; retry when one ends.",
     "У этого API-ключа уже идёт столько загрузок, сколько разрешено; повторите, когда одна завершится."},
    {"errors.unavailable", "Service temporarily unavailable.", "Сервис временно недоступен."},
    {"errors.unsupported_media_type", "Unsupported content type.", "Неподдерживаемый тип содержимого."},
    {"errors.upload_too_slow", "The upload arrived too slowly and was stopped; send it again on a faster connection.",
     "Загрузка шла слишком медленно и прервана; отправьте её снова по более быстрому соединению."},
    {"gift_codes.cancelled", "Gift code cancelled; its cost is back on the reseller balance.",
     "Подарочный код отменён; его стоимость возвращена на баланс реселлера."},
    {"gift_codes.issued", "Gift code issued.", "Подарочный код выпущен."},
    {"ok", "OK.", "Готово."},
    {"orders.cancelled", "Order cancelled.", "Заказ отменён."},
    {"orders.created", "Order created.", "Заказ создан."},
    {"orders.item_queued", "The chunk is queued.", "Фрагмент поставлен в очередь."},
    {"orders.items_queued", "The failed chunks are queued.", "Неудавшиеся фрагменты поставлены в очередь."},
    {"templates.created", "Template created.", "Шаблон создан."},
    {"templates.deleted", "Template deleted.", "Шаблон удалён."},
    {"templates.updated", "Template updated.", "Шаблон обновлён."},
    {"validation.between", "The :attribute field must be between :min and :max.",
     "Поле :attribute должно быть от :min до :max."},
    {"validation.boolean", "The :attribute field must be true or false.",
     "Поле :attribute должно быть true или false."},
    {"validation.channel_name", "The :attribute field must name a private channel of this service.",
     "Поле :attribute должно быть именем приватного канала этого сервиса."},
    {"validation.clean_text", "The :attribute field must be UTF-8 text without control characters.",
     "Поле :attribute должно быть текстом UTF-8 без управляющих символов."},
    {"validation.currency", "The :attribute field must be the code of an active currency.",
     "Поле :attribute должно быть кодом действующей валюты."},
    {"validation.date", "The :attribute field must be an ISO 8601 time, e.g. 2026-01-31T00:00:00+00:00.",
     "Поле :attribute должно быть временем в формате ISO 8601, например 2026-01-31T00:00:00+00:00."},
    {"validation.date_order", "The :attribute field must not be earlier than :other.",
     "Поле :attribute не должно быть раньше, чем :other."},
    {"validation.idempotency_key", "The Idempotency-Key header must be 1 to 255 visible ASCII characters.",
     "Заголовок Idempotency-Key должен содержать от 1 до 255 видимых символов ASCII."},
    {"validation.in", "The :attribute field must be one of: :values.", "Поле :attribute должно быть одним из: :values."},
    {"validation.integer", "The :attribute field must be an integer.",
     "Поле :attribute должно быть целым числом."},
    {"validation.invalid_json", "The request body is not valid JSON.",
     "Тело запроса не является корректным JSON."},
    {"validation.language_code", "The :attribute field must be a two-letter lowercase ISO 639-1 code.",
     "Поле :attribute должно быть двухбуквенным кодом ISO 639-1 в нижнем регистре."},
    {"validation.language_unsupported", "The model :model does not support the language in :attribute.",
     "Модель :model не поддерживает язык, указанный в поле :attribute."},
    {"validation.max", "The :attribute field must not be greater than :max.",
     "Поле :attribute не должно быть больше :max."},
    {"validation.max_string", "The :attribute field must not be longer than :max characters.",
     "Поле :attribute не должно быть длиннее :max символов."},
    {"validation.min", "The :attribute field must be at least :min.",
     "Поле :attribute должно быть не меньше :min."},
    {"validation.mode_unsupported", "The mode in :attribute is not supported by :service.",
     "Режим, указанный в поле :attribute, не поддерживается сервисом :service."},
    {"validation.model_unavailable", "The model in :attribute is not available for :service.",
     "Модель, указанная в поле :attribute, недоступна для сервиса :service."},
    {"validation.multipart", "The request body is not valid multipart/form-data.",
     "Тело запроса не является корректным multipart/form-data."},
    {"validation.nothing_to_speak", "The :attribute field has nothing to speak once bracketed text is removed.",
     "В поле :attribute нечего озвучивать после удаления текста в квадратных скобках."},
    {"validation.numeric", "The :attribute field must be a number.", "Поле :attribute должно быть числом."},
    {"validation.object", "The :attribute field must be an object.", "Поле :attribute должно быть объектом."},
    {"validation.one_file", "The :attribute field must hold one file.",
     "Поле :attribute должно содержать один файл."},
    {"validation.preview_id", "The :attribute field must be a preview id (64 lowercase hex characters).",
     "Поле :attribute должно быть идентификатором предпросмотра (64 строчных шестнадцатеричных символа)."},
    {"validation.required", "The :attribute field is required.", "Поле :attribute обязательно."},
    {"validation.required_without", "The :attribute field is required when :other is not present.",
     "Поле :attribute обязательно, если не указано :other."},
    {"validation.service_unknown", "The :attribute field must name an available voice service.",
     "Поле :attribute должно указывать доступный голосовой сервис."},
    {"validation.setting_unknown", "The model :model has no voice setting :attribute.",
     "У модели :model нет настройки голоса :attribute."},
    {"validation.socket_id", "The :attribute field must be a socket id (two runs of digits joined by a dot).",
     "Поле :attribute должно быть идентификатором сокета (две группы цифр через точку)."},
    {"validation.storage_path", "The :attribute field must be a file path from an order result.",
     "Поле :attribute должно быть путём к файлу из результата заказа."},
    {"validation.string", "The :attribute field must be a string.", "Поле :attribute должно быть строкой."},
    {"validation.text_hash", "The :attribute field must be a lowercase hex SHA-256 (64 characters).",
     "Поле :attribute должно быть SHA-256 в нижнем регистре (64 шестнадцатеричных символа)."},
    {"validation.text_hash_mismatch", "The :attribute field is not the SHA-256 of input_text.",
     "Поле :attribute не совпадает с SHA-256 поля input_text."},
    {"validation.too_deep", "The request body is nested too deeply.",
     "Тело запроса имеет слишком глубокую вложенность."},
    {"validation.uuid", "The :attribute field must be a UUID.", "Поле :attribute должно быть UUID."},
    {"validation.voice_unknown", "The voice in :attribute is not in the :service voice catalogue.",
     "Голоса, указанного в поле :attribute, нет в каталоге сервиса :service."},
    {"validation.webhook_address", "The :attribute URL leads to a loopback, private, link-local, multicast or unspecified address.",
     "URL в поле :attribute ведёт на адрес loopback, частной или локальной сети, multicast или неопределённый адрес."},
    {"validation.webhook_events_filter", "The :attribute field must be a non-empty list of: :values.",
     "Поле :attribute должно быть непустым списком из: :values."},
    {"validation.webhook_url", "The :attribute field must be an absolute https URL (http only to an allowed host) of at most :max characters.",
     "Поле :attribute должно быть абсолютным URL https (http только для разрешённого хоста) длиной не более :max символов."},
});

constexpr bool sorted() {
  for (std::size_t i = 1; i < kCatalogue.size(); ++i) {
    if (!(kCatalogue[i - 1].key < kCatalogue[i].key)) return false;
  }
  return true;
}
static_assert(sorted(), "message catalogue must stay sorted by key");

bool iequals_prefix(std::string_view text, std::string_view code) {
  if (!istarts_with_ascii(text, code)) return false;
  return text.size() == code.size() || text[code.size()] == '-' || text[code.size()] == '_';
}

}  // namespace

Locale parse_locale(std::string_view header) {
  if (iequals_prefix(header, "ru")) return Locale::ru;
  return Locale::en;
}

std::string_view locale_code(Locale locale) { return locale == Locale::ru ? "ru" : "en"; }

std::string render(const Message& message, Locale locale) {
  auto it = std::lower_bound(kCatalogue.begin(), kCatalogue.end(), std::string_view(message.key),
                             [](const Entry& e, std::string_view k) { return e.key < k; });
  if (it == kCatalogue.end() || it->key != message.key) return message.key;
  std::string_view text = locale == Locale::ru ? it->ru : it->en;
  if (message.params.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size() + 32);
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == ':') {
      bool replaced = false;
      for (const auto& [name, value] : message.params) {
        if (text.compare(i + 1, name.size(), name) == 0) {
          out += value;
          i += 1 + name.size();
          replaced = true;
          break;
        }
      }
      if (replaced) continue;
    }
    out += text[i++];
  }
  return out;
}

}  // namespace mediagen
