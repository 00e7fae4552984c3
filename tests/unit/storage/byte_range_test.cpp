#include "storage/byte_range.hpp"

#include <gtest/gtest.h>

#include <string>

#include "storage/media_type.hpp"

namespace mediagen::storage {
namespace {

RangeDecision decide(const char* header, std::uint64_t size) { return decide_range(std::string_view(header), size); }

TEST(ByteRange, ServesTheWholeFileWithoutAHeader) { EXPECT_EQ(decide_range(std::nullopt, 100), RangeDecision{WholeFile{}}); }

TEST(ByteRange, TakesAClosedRange) {
  EXPECT_EQ(decide("bytes=0-0", 100), RangeDecision{(ByteRange{0, 0})});
  EXPECT_EQ(decide("bytes=10-19", 100), RangeDecision{(ByteRange{10, 19})});
  EXPECT_EQ(decide("bytes=0-99", 100), RangeDecision{(ByteRange{0, 99})});
  EXPECT_EQ(std::get<ByteRange>(decide("bytes=10-19", 100)).length(), 10u);
}

TEST(ByteRange, ClampsALastPositionPastTheEnd) {
  EXPECT_EQ(decide("bytes=90-1000", 100), RangeDecision{(ByteRange{90, 99})});
  EXPECT_EQ(decide("bytes=0-99999999999999999999999", 100), RangeDecision{(ByteRange{0, 99})});
}

TEST(ByteRange, TakesAnOpenRange) {
  EXPECT_EQ(decide("bytes=5-", 100), RangeDecision{(ByteRange{5, 99})});
  EXPECT_EQ(decide("bytes=99-", 100), RangeDecision{(ByteRange{99, 99})});
}

TEST(ByteRange, TakesASuffixRange) {
  EXPECT_EQ(decide("bytes=-10", 100), RangeDecision{(ByteRange{90, 99})});
  EXPECT_EQ(decide("bytes=-100", 100), RangeDecision{(ByteRange{0, 99})});
  EXPECT_EQ(decide("bytes=-500", 100), RangeDecision{(ByteRange{0, 99})}) << "longer than the file: all of it";
  EXPECT_EQ(decide("bytes=-99999999999999999999999", 100), RangeDecision{(ByteRange{0, 99})});
}

TEST(ByteRange, RefusesARangeThatStartsAtOrPastTheEnd) {
  EXPECT_EQ(decide("bytes=100-", 100), RangeDecision{Unsatisfiable{}});
  EXPECT_EQ(decide("bytes=100-200", 100), RangeDecision{Unsatisfiable{}});
  EXPECT_EQ(decide("bytes=99999999999999999999999-", 100), RangeDecision{Unsatisfiable{}});
  EXPECT_EQ(decide("bytes=-0", 100), RangeDecision{Unsatisfiable{}}) << "an empty suffix";
}

TEST(ByteRange, RefusesEveryRangeOfAnEmptyFile) {
  EXPECT_EQ(decide("bytes=0-", 0), RangeDecision{Unsatisfiable{}});
  EXPECT_EQ(decide("bytes=0-0", 0), RangeDecision{Unsatisfiable{}});
  EXPECT_EQ(decide("bytes=-1", 0), RangeDecision{Unsatisfiable{}});
  EXPECT_EQ(decide_range(std::nullopt, 0), RangeDecision{WholeFile{}});
}

TEST(ByteRange, ServesTheWholeFileForSeveralRanges) {
  EXPECT_EQ(decide("bytes=0-1,5-6", 100), RangeDecision{WholeFile{}});
  EXPECT_EQ(decide("bytes=0-1, -5", 100), RangeDecision{WholeFile{}});
  EXPECT_EQ(decide("bytes=200-300,400-", 100), RangeDecision{WholeFile{}});
}

TEST(ByteRange, SkipsEmptyListElements) {
  EXPECT_EQ(decide("bytes=0-1,", 100), RangeDecision{(ByteRange{0, 1})});
  EXPECT_EQ(decide("bytes=, 3-4 ,,", 100), RangeDecision{(ByteRange{3, 4})});
}

TEST(ByteRange, IgnoresWhatDoesNotParseOrNamesAnotherUnit) {
  for (const char* header : {"", "bytes", "bytes=", "bytes=-", "bytes=a-b", "bytes=1-a", "bytes=5-1", "bytes=1",
                             "bytes=0x1-2", "bytes=+1-2", "bytes=-+1", "bytes=1--2", "bytes=1-2-3", "items=0-1",
                             "bytes =0-1x", "bytes=1 -2", "0-1", "bytes=,"}) {
    EXPECT_EQ(decide(header, 100), RangeDecision{WholeFile{}}) << header;
  }
}

TEST(ByteRange, ReadsTheUnitWithoutRegardToCaseOrSurroundingSpace) {
  EXPECT_EQ(decide("Bytes=1-2", 100), RangeDecision{(ByteRange{1, 2})});
  EXPECT_EQ(decide("  BYTES = 1-2 ", 100), RangeDecision{(ByteRange{1, 2})});
}

TEST(MediaType, FollowsTheExtension) {
  EXPECT_EQ(media_type_for("orders/x/result.mp3"), "audio/mpeg");
  EXPECT_EQ(media_type_for("orders/x/result.MP3"), "audio/mpeg");
  EXPECT_EQ(media_type_for("orders/x/result.wav"), "audio/wav");
  EXPECT_EQ(media_type_for("orders/x/result.srt"), "application/x-subrip; charset=utf-8");
  EXPECT_EQ(media_type_for("orders/x/result.vtt"), "text/vtt; charset=utf-8");
  EXPECT_EQ(media_type_for("orders/x/result"), "application/octet-stream");
  EXPECT_EQ(media_type_for("orders/x.mp3/result"), "application/octet-stream");
  EXPECT_EQ(media_type_for("orders/x/result.exe"), "application/octet-stream");
}

}  // namespace
}  // namespace mediagen::storage
