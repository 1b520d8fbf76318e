// libFuzzer harness for the state loader's parser (llama_state_set_data and the state files reach
// it first; nothing is restored before it accepts a buffer). See fuzz-state-body.h for the input
// layout. Invariant violations trap so that libFuzzer records the input.
#include <cstddef>
#include <cstdint>

#include "fuzz-state-body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size) {
    if (!fuzz_state::run_one(data, size)) {
        __builtin_trap();
    }
    return 0;
}
