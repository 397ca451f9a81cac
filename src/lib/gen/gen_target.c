/*
 * Where generate saves, and the overwrite rule (docs/generate.md, "The
 * folder"): the skill goes to -o DIR, named after DIR's last component,
 * or to skills_dir/NAME.  A folder that is already there is never
 * replaced without --force: the run refuses before anything is spent
 * when the folder is known up front (-o, --from DIR), or right after
 * the teacher's first reply when only the name says where.  With --force
 * a finished run first makes NAME.bak-<time>, a copy of the old folder
 * whose files are hard links (the save never writes a file in place: it
 * swaps in a fresh folder, so the links keep the old bytes), then saves as
 * always; a run that an error or Ctrl-C ended leaves the old folder as it
 * was and saves beside it, as NAME.new-<time>.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/gen.h"

#include "lib/gen/gen_loop.h"

/* A name the validator would accept, in ASCII (other bytes are left to
 * the validator): letters, digits, single inner hyphens, <= 64. */
static int name_ok(const char *s)
{
    size_t n = strlen(s);

    if (!n || n > 64 || s[0] == '-' || s[n - 1] == '-' || strstr(s, "--"))
        return 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (!(*p >= 0x80 || (*p >= 'a' && *p <= 'z') ||
              (*p >= '0' && *p <= '9') || *p == '-'))
            return 0;
    return 1;
}

void gen_target(const up_gen *g, const char *name, up_buf *out)
{
    const char *dir =
        g->cfg->skills_dir.value ? g->cfg->skills_dir.value : "skills";

    up_buf_reset(out);
    if (g->o->output)
        up_buf_adds(out, g->o->output);
    else
        up_fs_join(out, dir, name);
    while (out->len > 1 && out->data[out->len - 1] == '/')
        up_buf_truncate(out, out->len - 1); /* NAME.bak beside, not in it */
}

void gen_output_name(const up_gen *g, up_buf *out)
{
    up_buf_reset(out);
    if (g->o->output)
        up_fs_basename(out, g->o->output);
}

static int refuse(const char *path, up_error *err)
{
    return up_error_set(err, UP_EUSAGE,
                        "'%s' already exists and this run did not write it; "
                        "nothing was replaced: pass --force to replace it "
                        "(the old folder is kept as '%s.bak-<time>'), or "
                        "-o DIR to save elsewhere",
                        path, path);
}

int gen_check_target(up_gen *g, const char *name, up_error *err)
{
    up_buf path = UP_BUF_INIT, base = UP_BUF_INIT;
    int rc = 0;

    gen_output_name(g, &base);
    if (base.len && !name_ok(base.data))
        rc = up_error_set(err, UP_EUSAGE,
                          "-o '%s': the skill is named after the folder, and "
                          "'%s' is not a skill name (lowercase letters, "
                          "digits and single hyphens, at most 64); choose "
                          "a folder such as 'skills/my-skill'",
                          g->o->output, base.data);
    if (!rc && (name || g->o->output)) {
        gen_target(g, name ? name : "", &path);
        if (up_fs_exists(path.data) && !g->o->force)
            rc = refuse(path.data, err);
    }
    up_buf_release(&path);
    up_buf_release(&base);
    return rc;
}

/* path + suffix + "-YYYYmmdd-HHMMSS" (+ "-N"), a name not taken yet. */
static int free_name(up_buf *out, const char *path, const char *suffix)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
    for (int i = 1; i < 100; i++) {
        up_buf_reset(out);
        up_buf_addf(out, "%s%s-%s", path, suffix, stamp);
        if (i > 1)
            up_buf_addf(out, "-%d", i);
        if (!up_fs_exists(out->data))
            return 0;
    }
    return -1;
}

#define BACKUP_DEPTH 40 /* deeper than a loadable skill may nest */

static int copy_file(const char *from, const char *to, mode_t mode)
{
    char buf[16384];
    int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
    ssize_t n;

    if (in >= 0)
        out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 07777);
    while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
        if (up_fs_write_all(out, buf, (size_t)n))
            break;
    if (out >= 0 && n == 0 && !fsync(out))
        rc = 0;
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out))
        rc = -1;
    return rc;
}

static int link_tree(const char *from, const char *to, int depth);

/* One entry of a folder being backed up; -1 with errno on failure. */
static int link_entry(const char *from, const char *to, int depth)
{
    struct stat st;
    char target[4096];
    ssize_t n;

    if (lstat(from, &st))
        return -1;
    if (S_ISDIR(st.st_mode))
        return link_tree(from, to, depth + 1);
    if (S_ISLNK(st.st_mode)) {
        n = readlink(from, target, sizeof(target) - 1);
        if (n < 0)
            return -1;
        target[n] = '\0';
        return symlink(target, to);
    }
    if (!S_ISREG(st.st_mode))
        return 0; /* no part of a skill */
    return link(from, to) ? copy_file(from, to, st.st_mode) : 0;
}

static int link_tree(const char *from, const char *to, int depth)
{
    char **names = NULL;
    up_buf a = UP_BUF_INIT, b = UP_BUF_INIT;
    int rc;

    if (depth > BACKUP_DEPTH) {
        errno = ELOOP;
        return -1;
    }
    rc = mkdir(to, 0700) || up_fs_list(&names, NULL, from, NULL) ? -1 : 0;
    for (char **p = names; !rc && p && *p; p++) {
        up_buf_reset(&a);
        up_buf_reset(&b);
        up_fs_join(&a, from, *p);
        up_fs_join(&b, to, *p);
        rc = link_entry(a.data, b.data, depth);
    }
    up_strv_free(names);
    up_buf_release(&a);
    up_buf_release(&b);
    return rc;
}

/* The folder's mode, once its contents are in. */
static int backup(const char *from, const char *to)
{
    struct stat st;

    if (stat(from, &st) || link_tree(from, to, 0))
        return -1;
    return chmod(to, st.st_mode & 07777);
}

int gen_make_room(up_gen *g, int finished, up_buf *path, up_error *err)
{
    up_buf aside = UP_BUF_INIT;
    int rc = 0;

    if (!up_fs_exists(path->data))
        return 0;
    if (!g->o->force)
        return refuse(path->data, err);
    if (free_name(&aside, path->data, finished ? ".bak" : ".new"))
        rc = up_error_set(err, UP_EIO, "'%s': no free name beside it",
                          path->data);
    else if (!finished) { /* leave the old folder be; save beside it */
        up_buf_reset(path);
        up_buf_adds(path, aside.data);
    } else if (backup(path->data, aside.data)) {
        rc = up_error_set(err, UP_EIO,
                          "'%s': cannot keep the old version as '%s': %s",
                          path->data, aside.data, strerror(errno));
        up_fs_rm_tree(aside.data);
    } else {
        up_buf_reset(&g->backup);
        up_buf_adds(&g->backup, aside.data);
    }
    up_buf_release(&aside);
    return rc;
}
