/*
 * File-system helpers: bounded reads, atomic writes, safe relative paths.
 */
#ifndef UPSKILL_FS_H
#define UPSKILL_FS_H

#include <stddef.h>
#include <sys/types.h>

#include "upskill/buf.h"
#include "upskill/error.h"

/* Default cap for files we read whole (SKILL.md, tests, config). */
#define UP_FS_MAX_READ (16u * 1024u * 1024u)

/*
 * Append the whole regular file at path to out.  Fails with UP_ENOTFOUND
 * when missing, UP_EPARSE when it is a directory or not a regular file,
 * UP_ETOOBIG over max bytes, UP_EIO otherwise.  Messages name the path.
 */
int up_fs_read(up_buf *out, const char *path, size_t max, up_error *err);

/*
 * Replace path with len bytes of data atomically: write a temporary file
 * in the same folder, fsync, chmod mode, rename over path, fsync the
 * folder.  On failure path is untouched and the temporary file removed.
 */
int up_fs_write_atomic(const char *path, const void *data, size_t len,
                       mode_t mode, up_error *err);

/* mkdir -p; existing folders are fine. */
int up_fs_mkdir_p(const char *path, mode_t mode, up_error *err);

/*
 * Create the folder path when it is missing, but only when its parent
 * exists (a typo in a path must not grow a tree of folders): UP_ENOTFOUND
 * naming the parent otherwise.  *created is 1 when this call made it.
 */
int up_fs_mkdir_in(const char *path, mode_t mode, int *created, up_error *err);

/*
 * write(2) all len bytes of buf to fd, retrying on EINTR and short
 * writes; 0, or -1 with errno set by the write that failed (ENOSPC,
 * EFBIG, EIO...).
 */
int up_fs_write_all(int fd, const void *buf, size_t len);

/* 1 when path is a directory (following symlinks), else 0. */
int up_fs_is_dir(const char *path);
/* 1 when path is a regular file (following symlinks), else 0. */
int up_fs_is_file(const char *path);

/* 1 when something (even a broken symlink) is at path, else 0. */
int up_fs_exists(const char *path);
/*
 * Check that path names a regular file or a folder (following symlinks)
 * without opening it, so a FIFO never blocks: UP_ENOTFOUND "'x': no such
 * file or folder", or UP_EPARSE "'x' is a FIFO, not a file or folder" (a
 * socket, a character or block device).
 */
int up_fs_check_input(const char *path, up_error *err);

/*
 * Remove path and, when it is a folder, everything below it, at any
 * depth (fs_rm.c): symlinks are removed, never followed; a folder that
 * cannot be read or emptied is given mode 0700 first.  Best effort: what
 * cannot be removed stays, and a warning (up_warn: the CLI prints it)
 * names the first such path and its errno.  0 when all is gone (or path never
 * existed), -1 otherwise.
 */
int up_fs_rm_tree(const char *path);

/*
 * Remove everything inside the folder open in dirfd (which stays open,
 * its offset untouched), as up_fs_rm_tree; path names the folder in the
 * warning.  0 when it is empty, -1 otherwise.
 */
int up_fs_rm_contents(int dirfd, const char *path);

/* fsync the folder holding path, so a rename into it reaches the disk;
 * best effort. */
void up_fs_sync_parent(const char *path);

/* Append "a/b" to out, with exactly one slash between. */
void up_fs_join(up_buf *out, const char *a, const char *b);

/*
 * Sorted names in folder dir (without "." and ".."), as a NULL-terminated
 * heap array of heap strings; free with up_strv_free (alloc.h).
 */
int up_fs_list(char ***names, size_t *count, const char *dir, up_error *err);

/*
 * Check that rel is a safe path inside a folder: not empty, relative, no
 * "..", "." or empty component, no control characters or backslashes.
 */
int up_fs_check_relative(const char *rel, up_error *err);

/*
 * 1 when name reads "<prefix><pid>-..." (a leftover that names the
 * process which made it) and that pid is no live process; 0 otherwise,
 * also for a name without a pid.
 */
int up_fs_name_of_dead(const char *name, const char *prefix);

/* 1 when path p is folder dir or below it, by their text (both
 * normalised: no ".", ".." or trailing slash): "/data" holds "/data"
 * and "/data/x", not "/database". */
int up_fs_holds(const char *dir, const char *p);

/* 1 when path (which must exist) resolves, its symlinks followed, to
 * root_real (a realpath()) or below it; 0 when it leads outside or
 * cannot be resolved.  The one check of "a link out of a folder" that
 * skills and Harbor tasks share. */
int up_fs_resolves_inside(const char *root_real, const char *path);

/* A file given as bytes: its path relative to a folder, and its content
 * (a case's hidden check files, the files its checks own).  Borrowed. */
typedef struct up_fs_entry {
    const char *path; /* relative: up_fs_check_relative holds */
    const char *data; /* len bytes */
    size_t len;
    int executable; /* 1: the owner's run bit (a Harbor task's COPY keeps
                       it, as Docker's does; up_workspace_seed gives 0755).
                       up_fs_put_files ignores it */
} up_fs_entry;

/*
 * Write the n files of v into folder dir (which must exist), making
 * their folders, so that afterwards each path holds exactly its bytes
 * (mode 0644), whatever was there: a file, a symlink or an empty folder
 * in the way of a path or of one of its folders is removed first.  Never
 * follows a symlink, so nothing outside dir is written.  Errors:
 * UP_EUNSAFE (a bad path), UP_EIO (naming the path and why).
 */
int up_fs_put_files(const char *dir, const up_fs_entry *v, size_t n,
                    up_error *err);

/* Last component of path, without trailing slashes, into out. */
void up_fs_basename(up_buf *out, const char *path);
/* Everything before the last component ("." when none), into out. */
void up_fs_dirname(up_buf *out, const char *path);

#endif
