/*
 * Escaping text that came from outside (model output, file names, trace
 * content, run files) before it reaches a terminal, so that no escape
 * sequence in it can recolour, retitle or rewrite the user's terminal.
 */
#ifndef UPSKILL_ESC_H
#define UPSKILL_ESC_H

#include <stddef.h>

#include "upskill/buf.h"

/* Keep newline and tab as they are (multi-line content such as a trace). */
#define UP_ESC_MULTILINE 1u

/*
 * Append s[0..len) to out with every control character written as \xNN,
 * one escape per byte: C0 controls (including ESC, CR and, without
 * UP_ESC_MULTILINE, newline and tab), DEL, the C1 controls U+0080-U+009F
 * (both bytes of their UTF-8 form) and any byte that is not part of valid
 * UTF-8 (a lone 0x9B is CSI to an 8-bit terminal).  Everything else,
 * backslashes included, is copied unchanged, so ordinary text and code
 * read the same.  s may be NULL when len is 0.
 */
void up_esc_ctrl(up_buf *out, const char *s, size_t len, unsigned flags);

#endif
