/*
 * Private to the generate module: the prompts embedded at build time
 * (build/gen/prompts.c, made by scripts/embed.sh from the files
 * prompts/NAME.md).
 */
#ifndef UPSKILL_LIB_GEN_INT_H
#define UPSKILL_LIB_GEN_INT_H

#include <stddef.h>

typedef struct up_gen_builtin {
    const char *name; /* file name without ".md"; NULL ends the table */
    const char *text; /* NUL-terminated */
    size_t len;       /* bytes, without the NUL */
} up_gen_builtin;

extern const up_gen_builtin up_gen_builtins[];

#endif
