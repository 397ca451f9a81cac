/*
 * What a Harbor task needs to run offline beyond its Dockerfile
 * (harbor.h, docs/harbor.md): the places its Dockerfile copies the
 * skills to, for the oracle; and, for a tests/test.sh that installs its
 * tools from the network, the same script without those steps, running
 * Debian's tools (pytest, python3) instead.
 */
#include <string.h>

#include "upskill/harbor.h"

/* Words that start a network install step in a test.sh. */
static const char *const installers[] = {
    "uvx ", "pip ",           "pip3 ",           "uv ", "curl ", "wget ",
    "npm ", "python -m pip ", "python3 -m pip ", NULL};

/* Steps the offline test.sh skips (each line starting so): the
 * installers (not uvx, rewritten) and what only serves them. */
static const char *const skipped[] = {"pip ",
                                      "pip3 ",
                                      "uv ",
                                      "curl ",
                                      "wget ",
                                      "npm ",
                                      "python -m pip ",
                                      "python3 -m pip ",
                                      "apt-get ",
                                      "apt ",
                                      "source $HOME/.local/bin/env",
                                      ". $HOME/.local/bin/env",
                                      "source \"$HOME/.local/bin/env\"",
                                      ". \"$HOME/.local/bin/env\"",
                                      "export PATH=\"$HOME/.local/bin",
                                      NULL};

/* uvx's (and uv run's) options that take a value. */
static const char *const uvx_valued[] = {"--with",
                                         "-w",
                                         "--from",
                                         "--python",
                                         "-p",
                                         "--with-requirements",
                                         "--with-editable",
                                         "--index-url",
                                         "--extra-index-url",
                                         NULL};

/* A test.sh line setting one of these (after an optional `export `)
 * gets its student entries moved (search_prelude): the student's files
 * never shadow the verifier's programs or modules, whatever test.sh
 * exports (issue 37 item 3). */
static const char *const search_sets[] = {"PYTHONPATH=", "PATH=", NULL};

/*
 * Defined first in an offline test.sh that sets PATH or PYTHONPATH:
 * __upskill_paths moves each entry of both that the student can write
 * (relative, or under a folder of $UPSKILL_STUDENT_DIRS, which the
 * verifier's environment sets: the WORKDIR and the places) behind the
 * others -- PATH's to its end, PYTHONPATH's into
 * UPSKILL_PYTHONPATH_LATE, which upskill's sitecustomize (first on
 * PYTHONPATH, check.c) appends to sys.path after the system's folders;
 * __upskill_run runs a command with them moved (a `PYTHONPATH=x cmd`).
 */
static const char search_prelude[] =
    "__upskill_mine() { case $1 in /*) ;; *) return 0;; esac; "
    "__upskill_i=$IFS; IFS=:; set -- \"$1\" ${UPSKILL_STUDENT_DIRS-}; "
    "IFS=$__upskill_i; __upskill_e=$1; shift; for __upskill_d; do "
    "case $__upskill_e in \"$__upskill_d\"|\"$__upskill_d\"/*) return 0;; "
    "esac; done; return 1; }\n"
    "__upskill_split() { __upskill_k=$2; __upskill_l=$3; __upskill_i=$IFS; "
    "IFS=:; set -f; for __upskill_x in $1; do IFS=$__upskill_i; "
    "[ \"$__upskill_x\" = /tests/.upskill-pytest ] && continue; "
    "if __upskill_mine \"$__upskill_x\"; then "
    "__upskill_l=${__upskill_l:+$__upskill_l:}$__upskill_x; else "
    "__upskill_k=${__upskill_k:+$__upskill_k:}$__upskill_x; fi; done; "
    "set +f; IFS=$__upskill_i; }\n"
    "__upskill_paths() { __upskill_split \"${PYTHONPATH-}\" "
    "/tests/.upskill-pytest \"${UPSKILL_PYTHONPATH_LATE-}\"; "
    "export PYTHONPATH=$__upskill_k UPSKILL_PYTHONPATH_LATE=$__upskill_l; "
    "__upskill_split \"${PATH-}\" \"\" \"\"; "
    "PATH=$__upskill_k${__upskill_l:+:$__upskill_l}; export PATH; }\n"
    "__upskill_run() ( __upskill_paths; \"$@\" )\n";

/* Bytes of an offline test.sh at most (one argument of bash -c). */
#define OFFLINE_MAX ((size_t)64 << 10)

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

static int in(const char *const *v, const char *w, size_t n)
{
    for (size_t i = 0; v[i]; i++)
        if (strlen(v[i]) == n && !strncmp(v[i], w, n))
            return 1;
    return 0;
}

/* The length of the word at s (up to a blank or the line's end). */
static size_t word(const char *s)
{
    return strcspn(s, " \t\n");
}

/* Line l[0..n) into out with each `uvx [options]` and `uv run
 * [options]` cut down to the command they run (Debian's, offline). */
static void rewrite_uvx(up_buf *out, const char *l, size_t n)
{
    const char *e = l + n;

    while (l < e) {
        int at_word = 1;
        size_t k = 0;

        if (out->len)
            at_word = strchr(" \t\n;&|(", out->data[out->len - 1]) != NULL;
        if (at_word && !strncmp(l, "uvx ", 4))
            k = 4;
        else if (at_word && !strncmp(l, "uv run ", 7))
            k = 7;
        if (!k) {
            up_buf_addc(out, *l++);
            continue;
        }
        l += k;
        for (;;) {
            size_t w;

            l += strspn(l, " \t");
            w = word(l);
            if (l >= e || *l != '-')
                break;
            if (in(uvx_valued, l, w)) { /* its value too */
                l += w;
                l += strspn(l, " \t");
                w = word(l);
            }
            l += w;
        }
    }
}

/* The delimiter of a here-document that line l[0..n) opens, into d
 * (empty when none). */
static void heredoc(const char *l, size_t n, up_buf *d)
{
    const char *p = l;

    up_buf_reset(d);
    while ((p = strstr(p, "<<")) != NULL && p < l + n) {
        p += 2;
        if (*p == '<') { /* a here-string */
            p++;
            continue;
        }
        p += *p == '-';
        p += strspn(p, " \t");
        for (; p < l + n && !strchr(" \t;&|<>)", *p); p++)
            if (*p != '\'' && *p != '"')
                up_buf_addc(d, *p);
        return;
    }
}

/* The length of the shell word at s: quotes, backslashes and $(...)
 * kept whole, up to a blank or an operator outside them. */
static size_t shell_word(const char *s)
{
    size_t i = 0;
    int depth = 0;

    for (char q = 0; s[i]; i++) {
        if (q) {
            if (s[i] == '\\' && q == '"' && s[i + 1])
                i++;
            else if (s[i] == q)
                q = 0;
        } else if (s[i] == '\\' && s[i + 1]) {
            i++;
        } else if (s[i] == '\'' || s[i] == '"') {
            q = s[i];
        } else if (s[i] == '$' && s[i + 1] == '(') {
            depth++;
            i++;
        } else if (s[i] == ')' && depth) {
            depth--;
        } else if (!depth && strchr(" \t\n;&|<>()", s[i])) {
            break;
        }
    }
    return i;
}

/* 1 when word w is an assignment (NAME=...). */
static int assignment(const char *w)
{
    size_t k = strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                         "0123456789_");

    return k && w[k] == '=' && !(w[0] >= '0' && w[0] <= '9');
}

/* Line l[0..n) into out: when its first simple command sets PATH or
 * PYTHONPATH (search_sets; `export` or plain assignments), followed by
 * `; __upskill_paths`, or, when those assignments are for one command,
 * that command run through __upskill_run.  1 when it did. */
static int rewrite_search(up_buf *out, const char *l, size_t n)
{
    const char *p = l + strspn(l, " \t"), *c;
    int exp = !strncmp(p, "export ", 7), set = 0;

    c = exp ? p + 7 : p;
    for (;;) { /* its assignment words */
        c += strspn(c, " \t");
        if (!*c || strchr(";&|\n", *c) || !assignment(c))
            break;
        set |= starts(c, search_sets);
        c += shell_word(c);
    }
    if (!set)
        return 0;
    if (!exp && *c && !strchr(";&|\n", *c)) { /* a command: run through */
        up_buf_add(out, l, (size_t)(c - l));
        up_buf_adds(out, "__upskill_run ");
    } else {
        while (*c && !strchr(";&|\n", *c)) { /* export's other words */
            size_t w = shell_word(c);

            c += w ? w : 1;
            c += strspn(c, " \t");
        }
        while (c > l && (c[-1] == ' ' || c[-1] == '\t'))
            c--; /* the blanks before what follows stay after */
        up_buf_add(out, l, (size_t)(c - l));
        up_buf_adds(out, "; __upskill_paths");
    }
    up_buf_add(out, c, n - (size_t)(c - l));
    return 1;
}

/* test.sh s made offline into out: lines joined at a backslash; the
 * install steps skipped (`:`); uvx's options cut; here-documents as
 * they are. */
static void offline_script(up_buf *out, const char *s)
{
    up_buf d = UP_BUF_INIT, j = UP_BUF_INIT, k = UP_BUF_INIT;

    for (const char *p = s; *p;) {
        size_t n = strcspn(p, "\n");
        const char *l = p + strspn(p, " \t");

        while (d.len == 0 && n && p[n - 1] == '\\' && p[n] == '\n') {
            n++; /* a continuation: the logical line goes on */
            n += strcspn(p + n, "\n");
        }
        if (d.len) { /* inside a here-document */
            up_buf_add(out, p, n);
            if ((size_t)(l - p) + d.len == n && !strncmp(l, d.data, d.len))
                up_buf_reset(&d);
        } else if (starts(l, skipped)) {
            up_buf_add(out, p, (size_t)(l - p));
            up_buf_addc(out, ':');
        } else { /* its continuations joined */
            up_buf_reset(&j);
            for (size_t i = 0; i < n; i++) {
                int cont = p[i] == '\\' && i + 1 < n && p[i + 1] == '\n';

                up_buf_addc(&j, cont ? ' ' : p[i]);
                i += cont;
            }
            up_buf_reset(&k);
            if (!rewrite_search(&k, j.data ? j.data : "", j.len))
                up_buf_add(&k, j.data ? j.data : "", j.len);
            rewrite_uvx(out, k.data ? k.data : "", k.len);
            heredoc(j.data ? j.data : "", j.len, &d);
        }
        up_buf_addc(out, '\n');
        p += n + (p[n] == '\n');
    }
    up_buf_release(&d);
    up_buf_release(&j);
    up_buf_release(&k);
}

/* Lines that set a search path (after blanks): a test.sh holding one
 * is rewritten even without a network step. */
static const char *const search_lines[] = {
    "export PYTHONPATH=", "PYTHONPATH=", "export PATH=", "PATH=", NULL};

int up_harbor_offline_verifier(const char *test_sh, up_buf *cmd)
{
    up_buf sc = UP_BUF_INIT;
    int ok;

    if (!test_sh || (!line_starts(test_sh, installers) &&
                     !line_starts(test_sh, search_lines)))
        return 0;
    /* the images' `python`, where Debian has only python3 */
    up_buf_adds(&sc, "command -v python >/dev/null || python() { python3 "
                     "\"$@\"; }\n");
    up_buf_adds(&sc, search_prelude);
    offline_script(&sc, test_sh);
    ok = sc.len <= OFFLINE_MAX;
    if (ok && strstr(sc.data, "pytest"))
        up_buf_adds(cmd, "python3 -c 'import pytest' 2>/dev/null || { echo "
                         "'pytest is not installed (apt-get install "
                         "python3-pytest)' >&2; exit 1; }; ");
    if (ok) {
        up_buf_adds(cmd, "exec bash -c '");
        for (size_t i = 0; i < sc.len; i++)
            if (sc.data[i] == '\'')
                up_buf_adds(cmd, "'\\''");
            else
                up_buf_addc(cmd, sc.data[i]);
        up_buf_adds(cmd, "' /tests/test.sh");
    }
    up_buf_release(&sc);
    return ok;
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
