/*
 * Confined opening of workspace paths, shared by workspace.c and
 * tools.c.  Every function refuses a path that is not plainly relative
 * and never follows a symlink out of the folder; on refusal it returns
 * -1 and appends the reason (the text a model reads) to why.
 */
#ifndef UPSKILL_WORKSPACE_INT_H
#define UPSKILL_WORKSPACE_INT_H

#include <stddef.h>
#include <sys/types.h>

#include "lib/agent/workspace.h"

/* 0 when rel (len bytes, so an inner NUL shows) is a relative path with
 * no "..", "." or empty part, no control character, within the caps. */
int up_ws_check_path(const up_workspace *w, const char *rel, size_t len,
                     up_buf *why);

/* Open the folder rel ("" or "." for the root) without following any
 * symlink; create (with its parents) when create.  A new descriptor. */
int up_ws_open_dir(const up_workspace *w, const char *rel, int create,
                   up_buf *why);

/* Open the regular file rel for reading: openat2 RESOLVE_BENEATH where
 * the kernel has it (symlinks staying inside are fine), else a walk
 * refusing every symlink.  Not a regular file is refused. */
int up_ws_open_read(const up_workspace *w, const char *rel, up_buf *why);

/* Open rel for writing (truncated), making its folders; never through a
 * symlink.  *created is 1 when the file is new. */
int up_ws_open_write(const up_workspace *w, const char *rel, mode_t mode,
                     int *created, up_buf *why);

/* Read the open file fd: at most max bytes into out; *size gets its
 * whole size.  0, or -1 with why. */
int up_ws_read_fd(int fd, size_t max, up_buf *out, size_t *size, up_buf *why);

/* The bytes of s[0..n) that are text: n when s is UTF-8 without NUL;
 * when cut (more bytes followed), a character split at the end is left
 * out; (size_t)-1 when s is not text. */
size_t up_ws_text_len(const char *s, size_t n, int cut);

#endif
