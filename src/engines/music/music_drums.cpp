#include "music_drums.hpp"

namespace mediagen::engines::music {
namespace {

// General MIDI percussion keys.
constexpr std::uint8_t kKick = 36, kSideStick = 37, kSnare = 38, kClap = 39, kLowTom = 41, kClosedHat = 42,
                       kPedalHat = 44, kMidTom = 45, kOpenHat = 46, kHighTom = 48, kRide = 51, kShaker = 70;

std::vector<DrumKit> make_kits() {
  std::vector<DrumKit> kits(static_cast<std::size_t>(Kit::epic) + 1);
  const auto at = [&](Kit kit) -> DrumKit& { return kits[static_cast<std::size_t>(kit)]; };
  at(Kit::soft) = {{{{{kKick, "x.......o......."}, {kSideStick, "....o.......o..."}, {kClosedHat, "o...o...o...o..."}}},
                    {{{kKick, "x.........o....."}, {kSideStick, "....o.......o..."}, {kShaker, "o.o.o.o.o.o.o.o."}}}},
                   60, false};
  at(Kit::pop) = {{{{{kKick, "x.......x......."}, {kSnare, "....x.......x..."}, {kClosedHat, "x.o.x.o.x.o.x.o."}}},
                   {{{kKick, "x......ox......."}, {kSnare, "....x.......x..."}, {kClosedHat, "x.x.x.x.x.x.x.x."}}},
                   {{{kKick, "x.....x...x....."}, {kSnare, "....x.......x..o"}, {kClosedHat, "xoxoxoxoxoxoxoxo"}}}},
                  85, true};
  at(Kit::rock) = {{{{{kKick, "x.....x.x......."}, {kSnare, "....X.......X..."}, {kClosedHat, "x.x.x.x.x.x.x.x."}}},
                    {{{kKick, "x.x.....x.x....."}, {kSnare, "....X.......X..."}, {kOpenHat, "x.x.x.x.x.x.x.x."}}},
                    {{{kKick, "x......xx.....x."}, {kSnare, "....X.......X..."}, {kRide, "x.x.x.x.x.x.x.x."}}}},
                   100, true};
  at(Kit::dnb) = {{{{{kKick, "x.........x....."}, {kSnare, "....X.......X..."}, {kClosedHat, "xoxoxoxoxoxoxoxo"}}},
                   {{{kKick, "x.........x..x.."}, {kSnare, "....X..-....X.-."}, {kClosedHat, "xoxoxoxoxoxoxoxo"}}},
                   {{{kKick, "x.x.......x....."}, {kSnare, "....X.......X..-"}, {kClosedHat, "x-xox-xox-xox-xo"},
                     {kRide, "x...x...x...x..."}}}},
                  100, true};
  at(Kit::hiphop) = {{{{{kKick, "x......x..x....."}, {kSnare, "....x.......x..."}, {kClosedHat, "x.x.x.x.x.x.x.x."}}},
                      {{{kKick, "x.........xx...."}, {kSnare, "....x.......x..."}, {kClosedHat, "x.xxx.x.x.xxx.x."}}},
                      {{{kKick, "x..x......x....."}, {kClap, "....x.......x..."}, {kClosedHat, "x.x.x.x.x.x.x.x."}}}},
                     80, true};
  at(Kit::four_floor) = {
      {{{{kKick, "x...x...x...x..."}, {kClap, "....x.......x..."}, {kOpenHat, "..x...x...x...x."}}},
       {{{kKick, "x...x...x...x..."}, {kSnare, "....x.......x..."}, {kClosedHat, "xoxoxoxoxoxoxoxo"}}},
       {{{kKick, "x...x...x...x..."}, {kClap, "....x.......x..."}, {kClosedHat, "o.x.o.x.o.x.o.x."},
         {kShaker, "-o-o-o-o-o-o-o-o"}}}},
      90, true};
  at(Kit::jazz) = {{{{{kRide, "x...x.x.x...x.x."}, {kPedalHat, "....x.......x..."}, {kKick, "o..............."}}},
                    {{{kRide, "x...x.x.x...x.x."}, {kPedalHat, "....x.......x..."}, {kSnare, "......-.......-."}}}},
                   65, false};
  at(Kit::epic) = {{{{{kKick, "x.......x......."}, {kLowTom, "....x.......x..."}}},
                    {{{kKick, "x..x..x........."}, {kMidTom, "....x.x.....x.x."}, {kLowTom, "x.......x......."}}},
                    {{{kKick, "x.....x.x......."}, {kLowTom, "....x.....x.x..."}, {kHighTom, "..............xx"}}}},
                   100, true};
  return kits;
}

}  // namespace

const DrumKit& drum_kit(Kit kit) {
  static const std::vector<DrumKit> kits = make_kits();
  return kits[static_cast<std::size_t>(kit)];
}

const std::vector<std::array<std::uint8_t, 4>>& drum_fills() {
  static const std::vector<std::array<std::uint8_t, 4>> fills = {
      {kSnare, kSnare, kSnare, kSnare}, {kHighTom, kMidTom, kLowTom, kLowTom}, {kSnare, 0, kSnare, kSnare},
      {kMidTom, kMidTom, kLowTom, kLowTom}};
  return fills;
}

int step_velocity(char step) {
  switch (step) {
    case 'X': return 118;
    case 'x': return 100;
    case 'o': return 78;
    case '-': return 45;
    default: return 0;
  }
}

}  // namespace mediagen::engines::music
