/*
 * What a Harbor task needs to run offline beyond its Dockerfile
 * (harbor.h, docs/harbor.md): the places its Dockerfile copies the
 * skills to, for the oracle; and, for a tests/test.sh that installs its
 * tools from the network and grades by pytest's exit, the pytest command
 * it would run, with Debian's pytest.
 */
#include <string.h>

#include "upskill/harbor.h"

/* Words that start a network install step in a test.sh; after uvx,
 * those that never run the tests themselves. */
static const char *const installers[] = {
    "uvx ", "pip ",           "pip3 ",           "uv ", "curl ", "wget ",
    "npm ", "python -m pip ", "python3 -m pip ", NULL};

/* The reward lines of a pass/fail verifier: 1 on pytest's success
 * (each, in one of two spellings). */
static const char *const binary_reward[][2] = {
    {"echo 1 > /logs/verifier/reward.txt",
     "echo \"1\" > /logs/verifier/reward.txt"},
    {"echo 0 > /logs/verifier/reward.txt",
     "echo \"0\" > /logs/verifier/reward.txt"},
};

/* 1 when s writes both rewards. */
static int binary(const char *s)
{
    for (size_t i = 0; i < 2; i++)
        if (!strstr(s, binary_reward[i][0]) && !strstr(s, binary_reward[i][1]))
            return 0;
    return 1;
}

/* 1 when l starts with one of v. */
static int starts(const char *l, const char *const *v)
{
    for (size_t i = 0; v[i]; i++)
        if (!strncmp(l, v[i], strlen(v[i])))
            return 1;
    return 0;
}

/* 1 when a line of s starts (after blanks) with one of v. */
static int line_starts(const char *s, const char *const *v)
{
    for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
        if (starts(p + strspn(p, " \t"), v))
            return 1;
    return 0;
}

/* s with its backslash-newline continuations joined, into out. */
static void join_lines(up_buf *out, const char *s)
{
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] == '\n')
            s++;
        else
            up_buf_addc(out, *s);
    }
}

/* The word "pytest" in line l that starts pytest's arguments (not a
 * `--with pytest` of uvx), or NULL. */
static const char *pytest_word(const char *l, size_t n)
{
    for (const char *p = l; p && p < l + n; p++) {
        p = strstr(p, "pytest");
        if (!p || p >= l + n)
            return NULL;
        if ((p == l || strchr(" \t", p[-1])) && strchr(" \t\n", p[6]) &&
            (p - l < 7 || strncmp(p - 7, "--with ", 7)))
            return p;
    }
    return NULL;
}

/* pytest's arguments in args (up to a pipe, a list or a redirection),
 * without --ctrf FILE (a plugin installed from the network) into out. */
static void pytest_args(up_buf *out, const char *args, size_t n)
{
    size_t end = strcspn(args, "|;&>\n");

    if (end > n)
        end = n;
    for (size_t i = 0; i < end;) {
        size_t sp = strspn(args + i, " \t"), w;

        i += sp;
        w = strcspn(args + i, " \t");
        if (w > end - i)
            w = end - i;
        if (i + w == end && args[end] == '>' &&
            strspn(args + i, "0123456789") == w)
            break; /* the 2 of 2>&1 */
        if (w == 6 && !strncmp(args + i, "--ctrf", 6)) {
            i += w;
            i += strspn(args + i, " \t");
            i += strcspn(args + i, " \t"); /* its file */
            continue;
        }
        if (w) {
            up_buf_addc(out, ' ');
            up_buf_add(out, args + i, w);
        }
        i += w;
    }
}

int up_harbor_offline_verifier(const char *test_sh, up_buf *cmd)
{
    up_buf j = UP_BUF_INIT, args = UP_BUF_INIT;
    const char *found = NULL, *at = NULL;
    int n = 0;

    if (!test_sh || !line_starts(test_sh, installers) || !binary(test_sh))
        return 0;
    join_lines(&j, test_sh);
    for (const char *p = j.data; p && *p;
         p = strchr(p, '\n'), p = p ? p + 1 : p) {
        size_t len = strcspn(p, "\n");
        const char *l = p + strspn(p, " \t");

        if (*l == '#' || starts(l, installers + 1))
            continue; /* an install step, not the tests */
        if ((at = pytest_word(l, len - (size_t)(l - p))) != NULL) {
            n++;
            found = at;
        }
    }
    if (n == 1)
        pytest_args(&args, found + 6, strcspn(found + 6, "\n"));
    if (n == 1)
        up_buf_addf(cmd,
                    "python3 -c 'import pytest' 2>/dev/null || { echo "
                    "'pytest is not installed (apt-get install "
                    "python3-pytest)' >&2; exit 1; }; "
                    "python3 -m pytest -p no:cacheprovider%s; "
                    "if [ $? -eq 0 ]; then echo 1; else echo 0; fi > "
                    "/logs/verifier/reward.txt",
                    args.len ? args.data : "");
    up_buf_release(&j);
    up_buf_release(&args);
    return n == 1;
}

void up_harbor_skill_links(up_buf *out, const up_docker *d, const char *workdir)
{
    (void)workdir;
    for (size_t i = 0; i < d->nskill_dests; i++) {
        const char *p = d->skill_dests[i];

        if (strchr(p, '\''))
            continue; /* cannot be quoted */
        up_buf_addf(out, "mkdir -p '%s' && cp -R %s/. '%s'; ", p,
                    UP_HARBOR_ORACLE_SKILLS, p);
    }
}
