/*
 * up_buf: the one growable byte string used everywhere.
 *
 * Invariant: data is always NUL-terminated and never NULL; an initialised
 * buffer with no allocation points at a shared empty string, so
 * printf("%s", b.data) is always safe.  The buffer owns data; detach it to
 * take ownership.
 */
#ifndef UPSKILL_BUF_H
#define UPSKILL_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct up_buf {
    char *data; /* NUL-terminated, owned unless it is the shared empty one */
    size_t len; /* bytes used, not counting the NUL */
    size_t cap; /* bytes allocated; 0 means data is the shared empty one */
} up_buf;

#define UP_BUF_INIT                                                            \
    {                                                                          \
        up_buf_empty, 0, 0                                                     \
    }
extern char up_buf_empty[];

void up_buf_init(up_buf *b);
void up_buf_release(up_buf *b);
void up_buf_reset(up_buf *b);
void up_buf_grow(up_buf *b, size_t extra);
void up_buf_add(up_buf *b, const void *data, size_t len);
void up_buf_adds(up_buf *b, const char *s);
void up_buf_addc(up_buf *b, char c);
void up_buf_addf(up_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void up_buf_vaddf(up_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
void up_buf_truncate(up_buf *b, size_t len);
/* Remove trailing whitespace. */
void up_buf_rtrim(up_buf *b);
/* Return data as a heap string the caller frees; b is left empty. */
char *up_buf_detach(up_buf *b);

/* qsort comparator for an array of C strings (strcmp order). */
int up_strptr_cmp(const void *a, const void *b);

#endif
