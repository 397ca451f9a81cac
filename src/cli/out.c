/*
 * Terminal output: colour only on a TTY (NO_COLOR and --no-color win),
 * error and warning lines in one format, and a final check that stdout
 * was really written (so `upskill list > /dev/full` fails loudly).
 *
 * Text from outside (model output, file and skill names, trace content,
 * run files) reaches the terminal only through out_safe / out_text or an
 * error or warning line, all of which write control characters as \xNN
 * (upskill/esc.h), so no escape sequence in it acts on the terminal.
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

/* Escaped copies handed out by out_safe, reused round robin. */
#define SAFE_RING 8
static up_buf safe_ring[SAFE_RING];
static size_t safe_next;

const char *out_safe(const char *s)
{
    up_buf *b = &safe_ring[safe_next++ % SAFE_RING];

    up_buf_reset(b);
    up_esc_ctrl(b, s, s ? strlen(s) : 0, 0);
    return b->data;
}

void out_text(FILE *fp, const char *s)
{
    up_buf b = UP_BUF_INIT;

    up_esc_ctrl(&b, s, s ? strlen(s) : 0, UP_ESC_MULTILINE);
    fwrite(b.data, 1, b.len, fp);
    up_buf_release(&b);
}

/* Messages quote file names, model replies and server bodies: escape all. */
static void vsay(const char *kind, const char *fmt, va_list ap)
{
    up_buf msg = UP_BUF_INIT, safe = UP_BUF_INIT;

    up_buf_vaddf(&msg, fmt, ap);
    up_esc_ctrl(&safe, msg.data, msg.len, 0);
    fprintf(stderr, "upskill: %s: %s\n", kind, safe.data);
    up_buf_release(&msg);
    up_buf_release(&safe);
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
    for (size_t i = 0; i < SAFE_RING; i++)
        up_buf_release(&safe_ring[i]);
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    out_error("cannot write to standard output: %s",
              errno ? strerror(errno) : "write error");
    return 1;
}

/*
 * jansson escapes C0 controls but passes DEL and the C1 controls; in JSON
 * text these can only stand inside strings, where \u00NN means the same.
 */
void out_json(void *json)
{
    char *s = json_dumps(json, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    const unsigned char *p = (const unsigned char *)s;

    for (; p && *p; p++) {
        if (*p == 0x7F)
            fputs("\\u007F", stdout);
        else if (*p == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F)
            printf("\\u%04X", *++p);
        else
            fputc(*p, stdout);
    }
    fputc('\n', stdout);
    free(s);
}
