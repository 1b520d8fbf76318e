// The set-up most end-to-end suites share: the library's log silenced for the suite (the test output
// stays readable; set LLAMA_TEST_LOG=1 to keep it, when a failure needs it) and the backends
// initialised once. Derive the fixture from it:
//   class MyTest : public llama_test_util::quiet_llama_suite<> { ... };                     // TEST_F
//   class MyTest : public llama_test_util::quiet_llama_suite<::testing::TestWithParam<T>> { ... };  // TEST_P
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>

#include "llama.h"

namespace llama_test_util {

template <typename Base = ::testing::Test>
class quiet_llama_suite : public Base {
public:
    static void SetUpTestSuite() {
        if (!std::getenv("LLAMA_TEST_LOG")) {
            llama_log_set([](ggml_log_level, const char *, void *) {}, nullptr);
        }
        llama_backend_init();
    }
};

}  // namespace llama_test_util
