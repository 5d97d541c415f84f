#ifndef SESSIONHUB_CFUZZERDRIVER_H
#define SESSIONHUB_CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs that have their own `main` (it ships in libclang_rt.fuzzer,
/// linked by `-sanitize=fuzzer`): parses libFuzzer's flags from argc/argv and runs `callback`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
