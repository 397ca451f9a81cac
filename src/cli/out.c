/*
 * Terminal output: colour only on a TTY (NO_COLOR and --no-color win),
 * error and warning lines in one format, and a final check that stdout
 * was really written (so `upskill list > /dev/full` fails loudly).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"

static int color_on;
static int tty;

static const char *const codes[] = {
    [C_RESET] = "\033[0m", [C_BOLD] = "\033[1m",   [C_DIM] = "\033[2m",
    [C_RED] = "\033[31m",  [C_GREEN] = "\033[32m", [C_YELLOW] = "\033[33m",
    [C_BLUE] = "\033[34m", [C_CYAN] = "\033[36m",  [C_MAGENTA] = "\033[35m",
};

void out_init(int no_color)
{
    const char *nc = getenv("NO_COLOR");

    tty = isatty(STDOUT_FILENO);
    color_on = tty && !no_color && !(nc && *nc);
}

void out_disable_color(void)
{
    color_on = 0;
}

const char *out_c(enum color c)
{
    return color_on ? codes[c] : "";
}

int out_err_is_tty(void)
{
    return isatty(STDERR_FILENO);
}

static void vsay(const char *kind, const char *fmt, va_list ap)
{
    fprintf(stderr, "upskill: %s: ", kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void out_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsay("error", fmt, ap);
    va_end(ap);
}

void out_warn(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsay("warning", fmt, ap);
    va_end(ap);
}

int out_fail(const up_error *err)
{
    out_error("%s", err->msg);
    return up_exit_code(err->code);
}

int out_finish(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    out_error("cannot write to standard output: %s",
              errno ? strerror(errno) : "write error");
    return 1;
}

void out_json(void *json)
{
    json_dumpf(json, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
}
