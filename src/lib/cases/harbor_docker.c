/*
 * A task's Dockerfile, read instead of built (harbor.h): WORKDIR,
 * COPY/ADD of local files and plain mkdir are kept for the workspace;
 * `apt-get install` names packages that must be installed here; every
 * other RUN step is a reason the task cannot run offline without
 * Docker.  And the check of those packages against dpkg's database.
 *
 * Invariant: reading never fails; what is not emulated is named with
 * its line in d->blocked, so `--check` can say why.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "upskill/alloc.h"
#include "upskill/fs.h"
#include "upskill/harbor.h"

/* Programs whose RUN steps fetch from the network. */
static const char *const network[] = {
    "pip",  "pip3", "uv",   "uvx",   "npm",    "npx",        "yarn",  "pnpm",
    "curl", "wget", "git",  "conda", "mamba",  "micromamba", "cargo", "go",
    "gem",  "bun",  "deno", "pipx",  "poetry", NULL};

/* Programs whose RUN steps change nothing the task needs. */
static const char *const harmless[] = {"true",   ":",  "echo",  "set",
                                       "export", "cd", "chmod", NULL};

/* Variables an ENV may not set: the sandbox's own (its HOME, TMPDIR,
 * the checks' Python settings, the verifier's pytest plugin) and those
 * that would run or load a file before the program does (the dynamic
 * loader's, bash's start-up file, Python's home). */
static const char *const env_kept[] = {"HOME",
                                       "TMPDIR",
                                       "BASH_ENV",
                                       "ENV",
                                       "PYTHONHOME",
                                       "PYTHONSAFEPATH",
                                       "PYTHONNOUSERSITE",
                                       "PYTEST_PLUGINS",
                                       "PYTHONSTARTUP",
                                       NULL};

/* The sandbox's PATH (sandbox_argv.c), what $PATH expands to first. */
#define SANDBOX_PATH                                                           \
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* apt-get subcommands that change nothing offline. */
static const char *const apt_quiet[] = {"update", "clean", "autoclean",
                                        "autoremove", NULL};

/* pip packages whose Debian package is not python3-<name>. */
static const struct {
    const char *pip, *deb;
} pip_deb[] = {
    {"scikit-learn", "python3-sklearn"},
    {"sklearn", "python3-sklearn"},
    {"scikit-image", "python3-skimage"},
    {"python-docx", "python3-docx"},
    {"python-pptx", "python3-pptx"},
    {"pyyaml", "python3-yaml"},
    {"opencv-python", "python3-opencv"},
    {"opencv-python-headless", "python3-opencv"},
    {"pymupdf", "python3-fitz"},
    {"beautifulsoup4", "python3-bs4"},
    {"pillow", "python3-pil"},
    {"python-dateutil", "python3-dateutil"},
    {"python-dotenv", "python3-dotenv"},
    {"pyerfa", "python3-erfa"},
    {"cython", "cython3"},
};

/* pip's packaging tools, and the verifiers' report plugin (the offline
 * verifier drops its --ctrf, harbor_offline.c, and a test.sh run as it
 * is gets our own stand-in, check_ctrf.c): nothing a task needs. */
static const char *const pip_tools[] = {"pip", "setuptools", "wheel",
                                        "pytest-json-ctrf", NULL};

/* pip install options that take a value (skipped with it). */
static const char *const pip_valued[] = {
    "-i",           "--index-url",  "--extra-index-url",
    "-f",           "--find-links", "-c",
    "--constraint", "--target",     "-t",
    "--prefix",     "--root",       NULL};

/* pip install options that name what to install some other way. */
static const char *const pip_other[] = {"-r", "--requirement", "-e",
                                        "--editable", NULL};

static int in(const char *const *list, const char *w)
{
    for (size_t i = 0; list[i]; i++)
        if (!strcmp(list[i], w))
            return 1;
    return 0;
}

static void block(up_docker *d, int line, const char *what, const char *why)
{
    up_buf_addf(&d->blocked, "%sline %d: %.80s %s", d->blocked.len ? "; " : "",
                line, what, why);
}

static void strv_add(char ***v, size_t *n, size_t *cap, const char *s)
{
    UP_GROW(*v, *cap, *n + 1);
    (*v)[(*n)++] = up_xstrdup(s);
}

/* Split s into shell-like words (quotes removed) into a NULL-ended
 * heap strv; separators (&& || ; |) become words of their own; a word
 * starting with '#' comments out the rest of its line. */
static char **words(const char *s, size_t *n)
{
    char **v = NULL;
    size_t cap = 0;
    up_buf w = UP_BUF_INIT;

    *n = 0;
    while (*s) {
        s += strspn(s, " \t\n");
        if (*s == '#') { /* a comment, as the shell reads one */
            s += strcspn(s, "\n");
            continue;
        }
        if (!*s)
            break;
        up_buf_reset(&w);
        if (strchr(";&|", *s)) {
            size_t k = strspn(s, ";&|");

            up_buf_add(&w, s, k);
            s += k;
        }
        while (*s && !strchr(" \t\n;&|", *s)) {
            char q = *s;

            if (q == '"' || q == '\'') {
                const char *e = strchr(s + 1, q);
                size_t k = e ? (size_t)(e - s - 1) : strlen(s + 1);

                up_buf_add(&w, s + 1, k);
                s += k + 1 + (e != NULL);
            } else {
                up_buf_addc(&w, *s++);
            }
        }
        strv_add(&v, n, &cap, w.data ? w.data : "");
    }
    up_buf_release(&w);
    UP_GROW(v, cap, *n + 1);
    v[*n] = NULL;
    return v;
}

/* An absolute path for p (under the WORKDIR so far when relative),
 * normalised: no ".", "..", empty part or trailing slash. */
static char *absolute(const up_docker *d, const char *p)
{
    up_buf in = UP_BUF_INIT, b = UP_BUF_INIT;

    if (p[0] != '/')
        up_buf_adds(&in, d->workdir ? d->workdir : "");
    up_buf_addc(&in, '/');
    up_buf_adds(&in, p);
    for (const char *s = in.data; *s;) {
        size_t n;

        s += strspn(s, "/");
        n = strcspn(s, "/");
        if (n == 2 && !strncmp(s, "..", 2)) {
            while (b.len && b.data[b.len - 1] != '/')
                b.len--;
            if (b.len)
                b.len--; /* the slash before it */
            if (b.data)
                b.data[b.len] = '\0';
        } else if (n && !(n == 1 && s[0] == '.')) {
            up_buf_addc(&b, '/');
            up_buf_add(&b, s, n);
        }
        s += n;
    }
    if (!b.len)
        up_buf_addc(&b, '/');
    up_buf_release(&in);
    return up_buf_detach(&b);
}

/* `apt-get install ...` (w at the program): its packages into d. */
static void apt(up_docker *d, char **w, size_t n, int line)
{
    size_t i = 1;

    while (i < n && w[i][0] == '-')
        i++;
    if (i >= n || in(apt_quiet, w[i]))
        return;
    if (strcmp(w[i], "install")) {
        block(d, line, w[i], "(apt-get) is not emulated");
        return;
    }
    for (i++; i < n; i++)
        if (w[i][0] != '-')
            strv_add(&d->apt, &d->napt, &d->apt_cap, w[i]);
}

/* Debian's package of pip requirement req ("numpy==1.26.4",
 * "pandas[excel]>=2") into deb: the table's, else python3-<name>
 * lowercased with '_' and '.' as '-'; 0 for pip's own tools. */
static int pip_package(const char *req, up_buf *deb)
{
    size_t n = strcspn(req, "=<>~![; @");
    up_buf name = UP_BUF_INIT;
    int rc = 1;

    for (size_t i = 0; i < n; i++) {
        char c = (char)tolower((unsigned char)req[i]);

        up_buf_addc(&name, c == '_' || c == '.' ? '-' : c);
    }
    if (!name.len || in(pip_tools, name.data))
        rc = 0;
    for (size_t i = 0; rc && i < sizeof(pip_deb) / sizeof(pip_deb[0]); i++)
        if (!strcmp(pip_deb[i].pip, name.data)) {
            up_buf_adds(deb, pip_deb[i].deb);
            up_buf_release(&name);
            return 1;
        }
    if (rc)
        up_buf_addf(deb, "python3-%s", name.data);
    up_buf_release(&name);
    return rc;
}

/* `pip install ...` (w at "install"): each package it names becomes a
 * Debian package to have (pip_package; its version is not checked);
 * a requirements file, an editable or a URL cannot be mapped. */
static void pip(up_docker *d, char **w, size_t n, int line)
{
    up_buf deb = UP_BUF_INIT;

    for (size_t i = 1; i < n; i++) {
        if (in(pip_other, w[i]) || strstr(w[i], "://") || strchr(w[i], '/')) {
            block(d, line, "pip install",
                  "needs the network (a requirements "
                  "file, a path or a URL)");
            break;
        }
        if (in(pip_valued, w[i])) {
            i++;
            continue;
        }
        up_buf_reset(&deb);
        if (w[i][0] != '-' && pip_package(w[i], &deb))
            strv_add(&d->apt, &d->napt, &d->apt_cap, deb.data);
    }
    up_buf_release(&deb);
}

/* The index of "install" when w is a pip install (pip, pip3, python[3]
 * -m pip), else 0. */
static size_t pip_install(char **w, size_t n)
{
    size_t at = !strcmp(w[0], "pip") || !strcmp(w[0], "pip3") ? 1
                : n > 2 && !strncmp(w[0], "python", 6) && !strcmp(w[1], "-m") &&
                        !strcmp(w[2], "pip")
                    ? 3
                    : 0;

    return at && at < n && !strcmp(w[at], "install") ? at : 0;
}

static void mkdirs(up_docker *d, char **w, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (w[i][0] != '-') {
            UP_GROW(d->mkdirs, d->mkdirs_cap, d->nmkdirs + 1);
            d->mkdirs[d->nmkdirs++] = absolute(d, w[i]);
        }
}

/* 1 when rm only clears caches (apt's lists, /tmp). */
static int rm_cache(char **w, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (w[i][0] != '-' && strncmp(w[i], "/var/", 5) &&
            strncmp(w[i], "/tmp/", 5))
            return 0;
    return 1;
}

/* One simple command of a RUN step: w[0..n), VAR=value words skipped. */
static void command(up_docker *d, char **w, size_t n, int line)
{
    size_t pi;

    while (n && strchr(w[0], '=') && w[0][0] != '=') {
        w++;
        n--;
    }
    if (!n || in(harmless, w[0]))
        return;
    if (!strcmp(w[0], "apt-get") || !strcmp(w[0], "apt"))
        apt(d, w, n, line);
    else if (!strcmp(w[0], "mkdir"))
        mkdirs(d, w, n);
    else if (!strcmp(w[0], "rm") && rm_cache(w, n))
        return;
    else if ((pi = pip_install(w, n)) != 0)
        pip(d, w + pi, n - pi, line);
    else if (in(network, w[0]) || (n > 2 && !strncmp(w[0], "python", 6) &&
                                   !strcmp(w[1], "-m") && in(network, w[2])))
        block(d, line, w[0], "needs the network");
    else
        block(d, line, w[0], "(a RUN step) is not emulated");
}

static void run(up_docker *d, const char *args, int line)
{
    size_t n, from = 0;
    char **w = words(args, &n);

    for (size_t i = 0; i <= n; i++)
        if (i == n || (w[i][0] && strchr(";&|", w[i][0]))) {
            command(d, w + from, i - from, line);
            from = i + 1;
        }
    up_strv_free(w);
}

/* The exec (JSON) form's words, `["a b", "/root/"]`, into a NULL-ended
 * heap strv; NULL (and *n 0) when args is not an array of strings. */
static char **json_words(const char *s, size_t *n)
{
    char **v = NULL;
    size_t cap = 0;
    up_buf w = UP_BUF_INIT;

    *n = 0;
    s += strspn(s, " \t");
    s += *s == '[';
    s += strspn(s, " \t");
    while (*s == '"') {
        up_buf_reset(&w);
        for (s++; *s && *s != '"'; s++) {
            if (*s == '\\' && s[1])
                s++;
            up_buf_addc(&w, *s);
        }
        if (*s++ != '"')
            break;
        strv_add(&v, n, &cap, w.data ? w.data : "");
        s += strspn(s, " \t");
        s += *s == ',';
        s += strspn(s, " \t");
    }
    up_buf_release(&w);
    UP_GROW(v, cap, *n + 1);
    v[*n] = NULL;
    if (*s != ']' || s[1 + strspn(s + 1, " \t")]) {
        up_strv_free(v);
        *n = 0;
        return NULL;
    }
    return v;
}

static void copy(up_docker *d, const char *args, int line, int add)
{
    size_t n, i = 0;
    char **w = args[0] == '[' ? json_words(args, &n) : words(args, &n);

    if (!w) {
        block(d, line, add ? "ADD [...]" : "COPY [...]",
              "is not a JSON array of strings");
        return;
    }

    while (i < n && !strncmp(w[i], "--", 2)) {
        if (!strncmp(w[i], "--from", 6))
            block(d, line, "COPY --from",
                  "(a multi-stage build) is not "
                  "emulated");
        i++;
    }
    if (n - i < 2) {
        block(d, line, add ? "ADD" : "COPY", "needs a source and a place");
        n = 0;
    }
    for (size_t k = i; n && k + 1 < n; k++) {
        char *src = w[k] + 2 * !strncmp(w[k], "./", 2);
        size_t len = strlen(src);

        while (len > 1 && src[len - 1] == '/')
            src[--len] = '\0'; /* "data/" is the folder data */
        if (strstr(src, "://")) {
            block(d, line, src, "needs the network");
        } else if (!strcmp(src, "skills")) { /* upskill installs them */
            UP_GROW(d->skill_dests, d->skill_dests_cap, d->nskill_dests + 1);
            d->skill_dests[d->nskill_dests++] = absolute(d, w[n - 1]);
        } else if (strncmp(src, "skills/", 7)) {
            UP_GROW(d->copies, d->copies_cap, d->ncopies + 1);
            d->copies[d->ncopies++] = (up_docker_copy){
                up_xstrdup(src[0] ? src : "."), absolute(d, w[n - 1]),
                n - i > 2 || w[n - 1][strlen(w[n - 1]) - 1] == '/'};
        }
    }
    up_strv_free(w);
}

/* The value of variable name[0..n) for an expansion: an earlier ENV's,
 * the sandbox's PATH, or "" (unset). */
static const char *env_value(const up_docker *d, const char *name, size_t n)
{
    for (size_t i = 0; i < d->nenv; i++)
        if (!strncmp(d->env[i], name, n) && d->env[i][n] == '=')
            return d->env[i] + n + 1;
    return n == 4 && !strncmp(name, "PATH", 4) ? SANDBOX_PATH : "";
}

/* s with $NAME and ${NAME} expanded (env_value) into out; 0 when out
 * grew past UP_HARBOR_ENV_BYTES. */
static int expand(const up_docker *d, const char *s, up_buf *out)
{
    while (*s && out->len <= UP_HARBOR_ENV_BYTES) {
        int brace = s[0] == '$' && s[1] == '{';
        const char *name = s + 1 + brace;
        size_t n = s[0] == '$' ? strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "abcdefghijklmnopqrstuvwxyz"
                                              "0123456789_")
                               : 0;

        if (!n || (brace && name[n] != '}')) {
            up_buf_addc(out, *s++);
            continue;
        }
        up_buf_adds(out, env_value(d, name, n));
        s = name + n + brace;
    }
    return out->len <= UP_HARBOR_ENV_BYTES;
}

/* NAME=value (value expanded) into d->env, over an earlier NAME. */
static void env_set(up_docker *d, const char *name, size_t n, const char *v,
                    int line)
{
    up_buf b = UP_BUF_INIT;
    char kw[64];

    snprintf(kw, sizeof(kw), "ENV %.*s", (int)(n < 50 ? n : 50), name);
    if (!n ||
        strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789_") != n) {
        block(d, line, kw, "is not a variable's name");
        return;
    }
    up_buf_add(&b, name, n);
    if (in(env_kept, b.data) || !strncmp(name, "LD_", 3)) {
        block(d, line, kw, "would change the sandbox (not emulated)");
        up_buf_release(&b);
        return;
    }
    up_buf_addc(&b, '=');
    if (!expand(d, v, &b)) {
        block(d, line, kw, "is over UP_HARBOR_ENV_BYTES (65536 bytes)");
        up_buf_release(&b);
        return;
    }
    for (size_t i = 0; i < d->nenv; i++)
        if (!strncmp(d->env[i], b.data, n + 1)) {
            free(d->env[i]);
            d->env[i] = up_buf_detach(&b);
            return;
        }
    if (d->nenv >= UP_HARBOR_ENV_MAX) {
        block(d, line, kw, "is one over UP_HARBOR_ENV_MAX (256 variables)");
        up_buf_release(&b);
        return;
    }
    UP_GROW(d->env, d->env_cap, d->nenv + 2);
    d->env[d->nenv++] = up_buf_detach(&b);
    d->env[d->nenv] = NULL;
}

/* `ENV NAME=value ...` (quotes removed) or `ENV NAME value`. */
static void env(up_docker *d, const char *args, int line)
{
    size_t n, k = strcspn(args, " \t=");
    char **w;

    if (args[k] != '=') { /* the old form: the rest of the line */
        const char *v = args + k + strspn(args + k, " \t");

        env_set(d, args, k, v, line);
        return;
    }
    w = words(args, &n);
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(w[i], '=');

        if (eq)
            env_set(d, w[i], (size_t)(eq - w[i]), eq + 1, line);
        else
            block(d, line, "ENV", "expects NAME=value");
    }
    up_strv_free(w);
}

/* One instruction (its keyword in kw, the rest in args). */
static void instruction(up_docker *d, const char *kw, const char *args,
                        int line)
{
    if (!strcasecmp(kw, "WORKDIR")) {
        char *wd = absolute(d, args);

        free(d->workdir);
        d->workdir = wd;
    } else if (!strcasecmp(kw, "RUN")) {
        if (args[0] == '[')
            block(d, line, "RUN [...]", "(exec form) is not emulated");
        else
            run(d, args, line);
    } else if (!strcasecmp(kw, "COPY") || !strcasecmp(kw, "ADD")) {
        copy(d, args, line, kw[0] == 'A' || kw[0] == 'a');
    } else if (!strcasecmp(kw, "ENV")) {
        env(d, args, line);
    }
    /* FROM, USER, CMD, ENTRYPOINT, ARG, LABEL...: not emulated, and not
     * needed by a workspace (docs/harbor.md) */
}

/* Joined logical line (backslash continuations) from *p into b; its
 * first physical line's number is *line on return.  Comment lines inside
 * a continued instruction are dropped, as Docker drops them. */
static void logical_line(const char **p, up_buf *b, int *line, int *next)
{
    up_buf_reset(b);
    *line = *next;
    for (;;) {
        size_t k = strcspn(*p, "\n");
        size_t t = k;

        (*next)++;
        if (b->len && (*p)[strspn(*p, " \t")] == '#') {
            *p += k + ((*p)[k] == '\n'); /* a comment inside a continued */
            if (!**p)                    /* instruction: Docker drops it */
                return;
            continue;
        }
        while (t && ((*p)[t - 1] == ' ' || (*p)[t - 1] == '\r'))
            t--;
        if (t && (*p)[t - 1] == '\\') {
            up_buf_add(b, *p, t - 1);
            up_buf_addc(b, ' ');
            *p += k + ((*p)[k] == '\n');
            if (!**p)
                return;
            continue;
        }
        up_buf_add(b, *p, t);
        *p += k + ((*p)[k] == '\n');
        return;
    }
}

void up_docker_parse(up_docker *d, const char *text, const char *file)
{
    up_buf b = UP_BUF_INIT;
    int line, next = 1;

    (void)file;
    while (*text) {
        const char *s;
        size_t k;

        logical_line(&text, &b, &line, &next);
        s = b.data ? b.data : "";
        s += strspn(s, " \t");
        if (!*s || *s == '#')
            continue;
        k = strcspn(s, " \t");
        {
            char kw[16];

            snprintf(kw, sizeof(kw), "%.*s", (int)(k < 15 ? k : 15), s);
            s += k;
            s += strspn(s, " \t");
            instruction(d, kw, s, line);
        }
    }
    up_buf_release(&b);
}

void up_docker_release(up_docker *d)
{
    free(d->workdir);
    for (size_t i = 0; i < d->ncopies; i++) {
        free(d->copies[i].src);
        free(d->copies[i].dest);
    }
    free(d->copies);
    for (size_t i = 0; i < d->nmkdirs; i++)
        free(d->mkdirs[i]);
    free(d->mkdirs);
    for (size_t i = 0; i < d->nskill_dests; i++)
        free(d->skill_dests[i]);
    free(d->skill_dests);
    for (size_t i = 0; i < d->napt; i++)
        free(d->apt[i]);
    free(d->apt);
    for (size_t i = 0; i < d->nenv; i++)
        free(d->env[i]);
    free(d->env);
    up_buf_release(&d->blocked);
    memset(d, 0, sizeof(*d));
}

/* ---- dpkg ---- */

/* 1 when package name (":arch" and "=version" cut off) is listed as
 * installed in status (dpkg's status file's text). */
static int installed(const char *status, const char *pkg)
{
    size_t n = strcspn(pkg, ":=");
    const char *p = status;

    while ((p = strstr(p, "Package: ")) != NULL) {
        const char *name = p + 9, *end = strstr(name, "\n\n");

        p = name;
        if ((p == status + 9 || p[-10] == '\n') && strcspn(name, "\n") == n &&
            !strncmp(name, pkg, n)) {
            const char *st = strstr(name, "\nStatus: install ok installed");

            if (st && (!end || st < end))
                return 1;
        }
    }
    return 0;
}

size_t up_harbor_missing_packages(const char *status_path,
                                  const char *const *pkgs, size_t n,
                                  up_buf *missing)
{
    up_buf status = UP_BUF_INIT;
    size_t k = 0;
    up_error e;

    if (!n) /* most tasks install nothing: dpkg's status is megabytes */
        return 0;
    if (up_fs_read(&status, status_path ? status_path : UP_HARBOR_DPKG_STATUS,
                   (size_t)256 << 20, &e))
        up_buf_reset(&status);
    for (size_t i = 0; i < n; i++)
        if (!installed(status.data ? status.data : "", pkgs[i]))
            up_buf_addf(missing, "%s%s", k++ ? " " : "", pkgs[i]);
    up_buf_release(&status);
    return k;
}
