/*
 * UTF-8 repair for outside text (model replies, CLI output, tool output):
 * every byte that does not begin a valid UTF-8 sequence (RFC 3629: no
 * overlongs, no surrogates, nothing past U+10FFFF), and every NUL, is
 * replaced by U+FFFD, so jansson can store the text and read it back.
 */
#ifndef UPSKILL_UTIL_UTF8_H
#define UPSKILL_UTIL_UTF8_H

#include <stddef.h>

#include "upskill/buf.h"

/* Length of the valid UTF-8 sequence at p (n > 0 bytes left), or 0 when
 * p does not begin one; NUL counts as not valid. */
size_t up_utf8_seq(const unsigned char *p, size_t n);

/* Append n bytes of s to b, each byte that is not part of a valid
 * sequence (and each NUL) as U+FFFD.  Returns the bytes replaced. */
size_t up_utf8_add(up_buf *b, const char *s, size_t n);

/* The bytes of s (n) up_utf8_add would replace: 0 for clean text. */
size_t up_utf8_bad(const char *s, size_t n);

/* Make b valid UTF-8 in place (see up_utf8_add); returns the bytes
 * replaced (0: b was left untouched). */
size_t up_utf8_fix(up_buf *b);

#endif
