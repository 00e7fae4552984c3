// The recipe and modifier tables (sfx_recipes.hpp). English stems first, then Russian; prompt
// words are lower-cased and read ё as е, so the stems are written that way.
#include "sfx_recipes.hpp"

#include "mediagen/engines/prompt.hpp"

namespace mediagen::engines::sfx {
namespace {

using S = std::string_view;

// clang-format off
constexpr S kRain[] = {"rain", "drizzl", "downpour", "shower", "дожд", "ливен", "ливн", "морос"};
constexpr S kThunder[] = {"thunder", "storm", "lightning", "гром", "гроз", "молни"};
constexpr S kWind[] = {"wind=", "winds=", "windy", "windstorm", "breez", "gust", "gale", "blizzard", "howl", "ветер", "ветр", "бриз", "вьюг",
                       "метел", "ураган", "буря=", "бури=", "бурю="};
constexpr S kWaves[] = {"wave", "ocean", "surf", "beach", "shore", "sea=", "seas=", "seaside", "волн", "прибо",
                        "море", "моря", "морск", "океан", "пляж"};
constexpr S kFire[] = {"fire=", "fires=", "fireplace", "campfire", "bonfire", "crackl", "flame", "burning", "огонь",
                       "огня", "огне", "костер", "костр", "камин", "пламя", "пламен", "треск", "горит"};
constexpr S kDrip[] = {"drip", "drop", "leak", "faucet", "капл", "капа", "капе", "капн", "протеч", "кран"};
constexpr S kExplosion[] = {"explo", "blast", "bomb", "boom", "detonat", "grenade", "взрыв", "бомб", "бабах",
                            "граната", "гранаты"};
constexpr S kGunshot[] = {"gun", "shot=", "shots=", "gunshot", "pistol", "rifle", "bullet", "выстрел", "стрельб",
                          "пистолет", "ружь", "ружье", "винтовк", "пуля", "пули"};
constexpr S kGlass[] = {"glass", "shatter", "smash", "window", "стекл", "стекол", "осколк", "окно", "разбит"};
constexpr S kKnock[] = {"knock", "rap=", "стучит", "постуч", "стука"};
constexpr S kKnockWeak[] = {"door", "стук", "двер"};
constexpr S kFootsteps[] = {"footstep", "step", "walk", "stomp", "шаг", "ходьб", "поход", "топот", "топает"};
constexpr S kEngine[] = {"engine", "motor", "car=", "cars=", "truck", "idle", "idling", "hum=", "humming",
                         "generator", "двигател", "мотор", "машин", "грузовик", "гул=", "гула=", "гулом", "гудит", "гудени", "генератор"};
constexpr S kClock[] = {"clock", "tick", "watch", "часы", "часов", "часик", "тикан", "тикает", "тик="};
constexpr S kCreak[] = {"creak", "squeak", "hinge", "скрип"};
constexpr S kAlarm[] = {"alarm", "beep", "bleep", "buzzer", "будильник", "сигнализац", "писк", "пищ", "бип"};
constexpr S kBell[] = {"bell", "chime", "ding", "gong", "колокол", "звон", "гонг"};
constexpr S kSiren[] = {"siren", "ambulance", "police", "сирен", "полиц", "мигалк"};
constexpr S kBirds[] = {"bird", "chirp", "tweet", "sparrow", "songbird", "птиц", "птич", "щебет", "чирик", "воробе",
                        "соловей"};
constexpr S kDog[] = {"dog", "bark", "woof", "puppy", "hound", "собак", "лай=", "лает", "лают", "лая=", "гав", "пес=",
                      "пса=", "псы=", "щен"};
constexpr S kHeartbeat[] = {"heart", "pulse", "сердц", "сердеч", "сердце", "пульс"};
constexpr S kCrowd[] = {"crowd", "murmur", "chatter", "people", "cafe", "restaurant", "babble", "толп", "гомон",
                        "люд", "народ", "ресторан", "кафе", "болтовн"};
constexpr S kCrowdWeak[] = {"audience", "voices", "публик", "голоса"};
constexpr S kApplause[] = {"applau", "clap", "ovation", "cheer", "аплодис", "хлоп", "овац"};
constexpr S kWhoosh[] = {"whoosh", "swoosh", "swish", "woosh", "swipe", "swing", "transition", "вжух", "взмах",
                         "свист", "пролет"};
constexpr S kClick[] = {"click", "button", "tap=", "taps=", "switch", "щелч", "щелк", "клик", "кнопк"};
constexpr S kPop[] = {"pop=", "pops=", "popping", "bubble", "cork", "balloon", "пузыр", "пробк", "чпок", "лопн"};
constexpr S kLaser[] = {"laser", "zap", "blaster", "phaser", "scifi", "sci=", "ray=", "rays=", "лазер", "бластер",
                        "фантаст"};
constexpr S kCoin[] = {"coin", "pickup", "collect", "reward", "money", "cash", "монет", "деньг", "награда"};
constexpr S kAmbience[] = {"ambien", "atmospher", "background", "roomtone", "drone", "фон=", "фоно", "атмосфер",
                           "эмбиент"};

constexpr Recipe kRecipes[] = {
    // name          stems        weak         default ms  echo  render
    {"rain",        kRain,       {},          10000, 0.0,  render_rain},
    {"thunder",     kThunder,    {},          8000,  0.2,  render_thunder},
    {"wind",        kWind,       {},          10000, 0.0,  render_wind},
    {"sea waves",   kWaves,      {},          12000, 0.0,  render_waves},
    {"fire",        kFire,       {},          10000, 0.0,  render_fire},
    {"water drip",  kDrip,       {},          6000,  0.35, render_drip},
    {"explosion",   kExplosion,  {},          4000,  0.2,  render_explosion},
    {"gunshot",     kGunshot,    {},          1500,  0.3,  render_gunshot},
    {"glass break", kGlass,      {},          2500,  0.1,  render_glass},
    {"door knock",  kKnock,      kKnockWeak,  2000,  0.15, render_knock},
    {"footsteps",   kFootsteps,  {},          5000,  0.1,  render_footsteps},
    {"engine hum",  kEngine,     {},          8000,  0.0,  render_engine},
    {"clock tick",  kClock,      {},          5000,  0.1,  render_clock},
    {"door creak",  kCreak,      {},          2500,  0.1,  render_creak},
    {"alarm beep",  kAlarm,      {},          4000,  0.0,  render_alarm},
    {"bell",        kBell,       {},          5000,  0.15, render_bell},
    {"siren",       kSiren,      {},          8000,  0.1,  render_siren},
    {"bird chirp",  kBirds,      {},          8000,  0.1,  render_birds},
    {"dog bark",    kDog,        {},          4000,  0.1,  render_dog},
    {"heartbeat",   kHeartbeat,  {},          6000,  0.0,  render_heartbeat},
    {"crowd murmur", kCrowd,     kCrowdWeak,  10000, 0.15, render_crowd},
    {"applause",    kApplause,   {},          6000,  0.15, render_applause},
    {"whoosh",      kWhoosh,     {},          1500,  0.05, render_whoosh},
    {"click",       kClick,      {},          1000,  0.05, render_click},
    {"pop",         kPop,        {},          1000,  0.05, render_pop},
    {"laser zap",   kLaser,      {},          1500,  0.1,  render_laser},
    {"coin pickup", kCoin,       {},          1000,  0.1,  render_coin},
    {"ambience",    kAmbience,   {},          10000, 0.2,  render_ambience},
};
// clang-format on

constexpr S kDistant[] = {"distant", "far=", "faraway", "remote", "далек", "вдали", "вдалек", "издалек", "отдален"};
constexpr S kClose[] = {"close=", "near", "closeup", "близк", "рядом", "вблизи"};
constexpr S kHeavy[] = {"heavy", "strong", "intense", "big=", "huge", "massive", "powerful", "violent",
                        "torrential", "сильн", "мощн", "тяжел", "огромн", "больш", "ливнев"};
constexpr S kLight[] = {"light=", "gentle", "soft", "small", "little", "tiny", "легк", "слаб", "небольш", "мягк",
                        "маленьк", "нежн"};
constexpr S kShort[] = {"short", "brief", "коротк", "кратк"};
constexpr S kLong[] = {"long", "extended", "continuous", "endless", "lasting", "длинн", "долг", "продолжит",
                       "затяжн", "бесконечн"};
constexpr S kLoud[] = {"loud", "noisy", "deafening", "громк", "оглушит", "шумн"};
constexpr S kQuiet[] = {"quiet", "faint", "muffled", "тих", "еле", "приглуш"};
constexpr S kSlow[] = {"slow", "lazy", "медленн", "неспешн", "ленив"};
constexpr S kFast[] = {"fast", "rapid", "quick", "hurried", "frantic", "быстр", "стремит", "частый", "частые", "частая"};
constexpr S kMetallic[] = {"metal", "steel", "iron", "tin=", "металл", "желез", "сталь", "стальн", "жестян"};
constexpr S kEcho[] = {"echo", "reverb", "hall", "cave", "tunnel", "church", "cathedral", "эхо", "пещер", "зал",
                       "тоннел", "туннел", "собор", "церк"};

constexpr Modifier kModifiers[] = {
    {"distant", kDistant, [](Shape& s) { s.distance = 1.0, s.gain_db -= 9.0; }},
    {"close", kClose, [](Shape& s) { s.close = true, s.gain_db += 1.0; }},
    {"heavy", kHeavy, [](Shape& s) { s.intensity *= 1.7, s.pitch *= 0.85, s.gain_db += 1.5; }},
    {"light", kLight, [](Shape& s) { s.intensity *= 0.55, s.pitch *= 1.15, s.gain_db -= 3.0; }},
    {"short", kShort, [](Shape& s) { s.length *= 0.4; }},
    {"long", kLong, [](Shape& s) { s.length *= 2.0; }},
    {"loud", kLoud, [](Shape& s) { s.gain_db += 3.0; }},
    {"quiet", kQuiet, [](Shape& s) { s.gain_db -= 9.0; }},
    {"slow", kSlow, [](Shape& s) { s.rate *= 0.6; }},
    {"fast", kFast, [](Shape& s) { s.rate *= 1.6; }},
    {"metallic", kMetallic, [](Shape& s) { s.metallic = true; }},
    {"echo", kEcho, [](Shape& s) { s.echo = std::max(s.echo, 0.6); }},
};

}  // namespace

std::span<const Recipe> recipes() { return kRecipes; }
std::span<const Modifier> modifiers() { return kModifiers; }
const Recipe& fallback_recipe() { return kRecipes[std::size(kRecipes) - 1]; }

bool stem_matches(std::string_view word, std::string_view stem) {
  if (!stem.empty() && stem.back() == '=') return word == stem.substr(0, stem.size() - 1);
  return word.starts_with(stem);
}

}  // namespace mediagen::engines::sfx
