/*
 * Replacing a skill folder as a whole (for up_skill_save): the new
 * version is written into a fresh hidden folder beside the old one,
 * ".<name>.upskill-new-<pid>-XXXXXX", then swapped in by renames, so a
 * reader of the folder sees the old skill or the new one, never a mix.
 *
 * The swap is renameat2(RENAME_EXCHANGE) where the kernel and the file
 * system have it (the old version then sits in the hidden folder and is
 * removed); elsewhere the old folder is renamed aside
 * (".<name>.upskill-old-<pid>-XXXXXX"), the new one renamed in, and the
 * old one removed.  Entries of the old folder that are no part of a skill
 * (anything but SKILL.md, skill.md, skill_meta.json, references/,
 * scripts/ and assets/: a README, a .git) are moved into the new folder
 * first, so they survive.  Termination signals are held during the swap.
 *
 * Invariant: every hidden folder is named after the process that made it.
 * Leftovers of a process that died mid-save are removed by the next save
 * into the same parent folder; an old version set aside by a process that
 * died between its two renames is put back when the skill folder is
 * missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/skill/skill_int.h"
#include "upskill/alloc.h"
#include "upskill/fs.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int skill_swap_no_exchange;

/* The entries a skill folder's version owns; the rest is the user's. */
static const char *const skill_entries[] = {
    "SKILL.md",   "skill.md", "skill_meta.json",
    "references", "scripts",  "assets",
};

static int is_skill_entry(const char *name)
{
    for (size_t i = 0; i < sizeof(skill_entries) / sizeof(*skill_entries); i++)
        if (!strcmp(name, skill_entries[i]))
            return 1;
    return 0;
}

static void sync_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* ---- leftovers ---------------------------------------------------------- */

/* 1 when name is "<prefix><pid>-..." of a process that no longer runs. */
static int dead_leftover(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    char *end;
    long pid;

    if (strncmp(name, prefix, n))
        return 0;
    errno = 0;
    pid = strtol(name + n, &end, 10);
    if (errno || end == name + n || *end != '-' || pid <= 0 ||
        pid == (long)getpid())
        return 0;
    return kill((pid_t)pid, 0) && errno == ESRCH;
}

void skill_clean_dead(const char *parent, const char *prefix,
                      const char *restore)
{
    char **names = NULL;
    up_buf path = UP_BUF_INIT;

    if (up_fs_list(&names, NULL, parent, NULL))
        return;
    for (char **p = names; *p; p++) {
        if (!dead_leftover(*p, prefix))
            continue;
        up_buf_reset(&path);
        up_fs_join(&path, parent, *p);
        if (!(restore && access(restore, F_OK) &&
              rename(path.data, restore) == 0))
            up_fs_rm_tree(path.data);
    }
    up_strv_free(names);
    up_buf_release(&path);
}

int skill_tmp_dir(up_buf *out, const char *parent, const char *prefix,
                  up_error *err)
{
    up_buf_reset(out);
    up_fs_join(out, parent, prefix);
    up_buf_addf(out, "%ld-XXXXXX", (long)getpid());
    if (!mkdtemp(out->data))
        return up_error_set(err, UP_EIO, "'%s': cannot create a folder: %s",
                            parent, strerror(errno));
    return 0;
}

/* ".<base>.upskill-<kind>-": the prefix of the hidden folders of a save. */
static void save_prefix(up_buf *out, const char *base, const char *kind)
{
    up_buf_reset(out);
    up_buf_addf(out, ".%s.upskill-%s-", base, kind);
}

void skill_clean_saves(const char *parent, const char *base, const char *dir)
{
    up_buf prefix = UP_BUF_INIT;

    save_prefix(&prefix, base, "old");
    skill_clean_dead(parent, prefix.data, dir);
    save_prefix(&prefix, base, "new");
    skill_clean_dead(parent, prefix.data, NULL);
    up_buf_release(&prefix);
}

int skill_save_dir(up_buf *out, const char *parent, const char *base,
                   const char *kind, up_error *err)
{
    up_buf prefix = UP_BUF_INIT;
    int rc;

    save_prefix(&prefix, base, kind);
    rc = skill_tmp_dir(out, parent, prefix.data, err);
    up_buf_release(&prefix);
    return rc;
}

/* ---- the swap ----------------------------------------------------------- */

/*
 * Move every entry of from that is no part of a skill into to.  Stops at
 * the first failure (errno set) and returns -1.
 */
static int move_foreign(const char *from, const char *to)
{
    char **names = NULL;
    up_buf a = UP_BUF_INIT, b = UP_BUF_INIT;
    int rc = up_fs_list(&names, NULL, from, NULL) ? -1 : 0;

    for (char **p = names; !rc && p && *p; p++) {
        if (is_skill_entry(*p))
            continue;
        up_buf_reset(&a);
        up_buf_reset(&b);
        up_fs_join(&a, from, *p);
        up_fs_join(&b, to, *p);
        rc = rename(a.data, b.data);
    }
    up_strv_free(names);
    up_buf_release(&a);
    up_buf_release(&b);
    return rc;
}

static int exchange(const char *a, const char *b)
{
#ifdef SYS_renameat2
    if (!skill_swap_no_exchange)
        return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b,
                            RENAME_EXCHANGE);
#else
    (void)a;
    (void)b;
#endif
    errno = ENOSYS;
    return -1;
}

/* Without an exchange: old dir aside, new in, old removed. */
static int swap_by_renames(const char *tmp, const char *dir, const char *parent,
                           const char *base)
{
    up_buf aside = UP_BUF_INIT;
    int rc = skill_save_dir(&aside, parent, base, "old", NULL) ? -1 : 0;

    if (!rc)
        rc = rename(dir, aside.data);
    if (!rc && rename(tmp, dir)) {
        int e = errno;

        rename(aside.data, dir);
        errno = e;
        rc = -1;
    }
    if (aside.len)
        up_fs_rm_tree(aside.data); /* the old version, or the empty spare */
    up_buf_release(&aside);
    return rc;
}

/* Swap tmp and the existing folder dir; the old version ends up removed. */
static int swap_existing(const char *tmp, const char *dir, const char *parent,
                         const char *base)
{
    int rc = move_foreign(dir, tmp);

    if (!rc && exchange(tmp, dir) == 0) {
        up_fs_rm_tree(tmp); /* now the old version */
        return 0;
    }
    if (!rc && (errno == ENOSYS || errno == EINVAL || errno == ENOTSUP))
        rc = swap_by_renames(tmp, dir, parent, base);
    else
        rc = -1;
    if (rc) {
        int e = errno;

        move_foreign(tmp, dir);
        errno = e;
    }
    return rc;
}

int skill_swap_in(const char *tmp, const char *dir, const char *parent,
                  const char *base, up_error *err)
{
    sigset_t hold, old;
    int rc;

    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigaddset(&hold, SIGHUP);
    sigaddset(&hold, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &hold, &old);
    if (access(dir, F_OK) && errno == ENOENT)
        rc = rename(tmp, dir);
    else
        rc = swap_existing(tmp, dir, parent, base);
    if (rc)
        rc = up_error_set(err, UP_EIO,
                          "'%s': cannot put the new version in "
                          "place: %s",
                          dir, strerror(errno));
    else
        sync_dir(parent);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}
