/*
 * libFuzzer target for the validator: arbitrary SKILL.md bytes must give
 * findings, never a crash, a leak or an out-of-bounds read.
 */
#include <stdint.h>
#include <stdlib.h>

#include "upskill/upskill.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    up_vreport r;

    up_validate_init(&r, size % 2 ? UP_VP_SPEC : UP_VP_CLAUDE_CODE);
    up_validate_text(&r, (const char *)data, size, "fuzz/SKILL.md", "fuzz");
    up_validate_release(&r);
    return 0;
}
