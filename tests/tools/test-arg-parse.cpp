// The strict number parsers every tool uses (examples/common/arg-parse.h): a value is accepted only
// when the whole text is one number inside the flag's range.
#include <gtest/gtest.h>
#include "test-compat.h"

#include <cstdlib>

#include "arg-parse.h"

TEST(ArgParse, IntegersAcceptedOnlyWhole) {
    int64_t v = -1;
    EXPECT_TRUE(tool::parse_int("42", 0, 100, v));
    EXPECT_EQ(v, 42);
    EXPECT_TRUE(tool::parse_int("-5", -10, 10, v));
    EXPECT_EQ(v, -5);
    EXPECT_TRUE(tool::parse_int("+7", 0, 10, v));
    EXPECT_EQ(v, 7);
    for (const char * bad : {"", "abc", "5x", "x5", " 5", "5 ", "1.5", "0x10", "--5", "-"}) {
        v = 99;
        EXPECT_FALSE(tool::parse_int(bad, -100, 100, v)) << "'" << bad << "'";
        EXPECT_EQ(v, 99) << "a rejected value leaves the output alone";
    }
}

TEST(ArgParse, IntegerRangeAndOverflow) {
    int64_t v = 0;
    EXPECT_TRUE(tool::parse_int("0", 0, 0, v));
    EXPECT_FALSE(tool::parse_int("-1", 0, 10, v));
    EXPECT_FALSE(tool::parse_int("11", 0, 10, v));
    EXPECT_TRUE(tool::parse_int("9223372036854775807", INT64_MIN, INT64_MAX, v));
    EXPECT_EQ(v, INT64_MAX);
    EXPECT_FALSE(tool::parse_int("9223372036854775808", INT64_MIN, INT64_MAX, v));
    EXPECT_FALSE(tool::parse_int("4294967294", 0, 1 << 20, v));  // what "-n -5" used to become
}

TEST(ArgParse, UnsignedRejectsSigns) {
    uint64_t v = 0;
    EXPECT_TRUE(tool::parse_uint("18446744073709551615", 0, UINT64_MAX, v));
    EXPECT_EQ(v, UINT64_MAX);
    EXPECT_FALSE(tool::parse_uint("18446744073709551616", 0, UINT64_MAX, v));
    EXPECT_FALSE(tool::parse_uint("-1", 0, UINT64_MAX, v));  // strtoull would wrap it
    EXPECT_FALSE(tool::parse_uint("+1", 0, UINT64_MAX, v));
    EXPECT_FALSE(tool::parse_uint("4294967296", 0, UINT32_MAX, v));
}

TEST(ArgParse, FloatsFiniteAndInRange) {
    double v = 0;
    EXPECT_TRUE(tool::parse_float("0.5", 0, 1, v));
    EXPECT_DOUBLE_EQ(v, 0.5);
    EXPECT_TRUE(tool::parse_float("1e-5", 0, 1, v));
    EXPECT_TRUE(tool::parse_float(".25", 0, 1, v));
    for (const char * bad : {"", "nan", "inf", "-inf", "0.5junk", " 0.5", "1e999", "2", "-0.1"}) {
        EXPECT_FALSE(tool::parse_float(bad, 0, 1, v)) << "'" << bad << "'";
    }
}

TEST(ArgParse, ColourOnlyOnATerminalWithoutNoColor) {
    FILE * f = tmpfile();
    ASSERT_NE(f, nullptr);
    EXPECT_FALSE(tool::use_color(f));  // a file is not a terminal
    fclose(f);
    setenv("NO_COLOR", "1", 1);
    EXPECT_FALSE(tool::use_color(stdout));  // whatever stdout is
    unsetenv("NO_COLOR");
}
