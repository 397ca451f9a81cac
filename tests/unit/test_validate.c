/*
 * Unit tests for the validator: one table row per rule.  Each row writes
 * a SKILL.md into a fresh folder named as the row says, validates it and
 * checks the finding's code, line and message (or that there is no error).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "upskill/upskill.h"

#define FM(fields) "---\n" fields "---\n# Body\n\nDo it.\n"
#define D          "description: A test skill.\n"
#define CC         UP_VP_CLAUDE_CODE

struct vcase {
    const char *dir;  /* skill folder name */
    const char *text; /* SKILL.md */
    size_t len;       /* 0: strlen(text) */
    enum up_vprofile profile;
    const char *code; /* expected finding, NULL: none expected */
    int line;         /* its line (-1: don't check) */
    const char *msg;  /* a substring of its message, or NULL */
    int valid;        /* no errors expected */
};

static const struct vcase cases[] = {
    /* accepted */
    {"ok", FM("name: ok\n" D), 0, 0, NULL, 0, NULL, 1},
    {"crlf", "---\r\nname: crlf\r\n" D "---\r\nbody\r\n", 0, 0, NULL, 0, NULL,
     1},
    {"cr", "---\rname: cr\r" D "---\rbody\r", 0, 0, NULL, 0, NULL, 1},
    {"hr", "---\nname: hr\n" D "--- \nbody\n\n---\n\nmore\n", 0, 0, NULL, 0,
     NULL, 1},
    {"1st-step", FM("name: 1st-step\ndescription: yes\n"), 0, 0, NULL, 0, NULL,
     1},
    {"0x1g", FM("name: 0x1g\n" D), 0, 0, NULL, 0, NULL, 1},
    {"2024-01-01a", FM("name: 2024-01-01a\n" D), 0, 0, NULL, 0, NULL, 1},
    {"技能", FM("name: 技能\n" D), 0, 0, NULL, 0, NULL, 1},
    {"мой-навык", FM("name: мой-навык\n" D), 0, 0, NULL, 0, NULL, 1},
    {"abc", FM("name: ａｂｃ\n" D), 0, 0, NULL, 0, NULL, 1},
    {"file", FM("name: ﬁle\n" D), 0, 0, NULL, 0, NULL, 1},
    {"straße", FM("name: straße\n" D), 0, 0, NULL, 0, NULL, 1},
    {"a٣", FM("name: a٣\n" D), 0, 0, NULL, 0, NULL, 1},
    {"fold", FM("name: fold\ndescription: >-\n  a\n  b\n"), 0, 0, NULL, 0, NULL,
     1},
    {"meta", FM("name: meta\n" D "metadata:\n  a: b\n  c: \"1\"\n"), 0, 0, NULL,
     0, NULL, 1},
    /* bytes */
    {"bom", "\xef\xbb\xbf" FM("name: bom\n" D), 0, 0, "bom", 1,
     "byte order mark", 0},
    {"utf8", FM("name: utf8\n" D "license: \xc3\x28\n"), 0, 0, "not-utf8", 4,
     "not valid UTF-8", 0},
    {"nul", "---\nname: nul\n\0", 15, 0, "not-utf8", 3, "NUL byte", 0},
    {"surrogate", FM("name: surrogate\n" D "license: \xed\xa0\x80\n"), 0, 0,
     "not-utf8", 4, NULL, 0},
    /* frontmatter */
    {"nofm", "# no frontmatter\n", 0, 0, "no-frontmatter", 1,
     "SKILL.md must start with YAML frontmatter (---)", 0},
    {"empty", "", 0, 0, "no-frontmatter", 1, NULL, 0},
    {"dash4", "----\nname: dash4\n" D "---\n", 0, 0, "no-frontmatter", 1, NULL,
     0},
    {"open", "---\nname: open\n" D "body\n", 0, 0, "unclosed-frontmatter", 1,
     "SKILL.md frontmatter not properly closed with ---", 0},
    {"dashes", FM("name: dashes\ndescription: \"a---b\"\n"), 0, 0,
     "dashes-in-frontmatter", 3, "skills-ref splits", 1},
    /* YAML strictness */
    {"colon", FM("name: colon\ndescription: Use when: x\n"), 0, 0,
     "yaml-syntax", 3, "Invalid YAML in frontmatter: ", 0},
    {"flow", FM("name: flow\n" D "metadata: {a: b}\n"), 0, 0, "yaml-flow", 4,
     "Invalid YAML in frontmatter: flow style", 0},
    {"anchor", FM("name: &x anchor\n" D), 0, 0, "yaml-anchor", 2, NULL, 0},
    {"alias", FM("name: &x alias\n" D "license: *x\n"), 0, 0, "yaml-alias", 4,
     NULL, 0},
    {"tag", FM("name: !!str tag\n" D), 0, 0, "yaml-tag", 2, NULL, 0},
    {"dup", FM("name: dup\n" D D), 0, 0, "yaml-duplicate-key", 4,
     "duplicate key 'description'", 0},
    {"tab", FM("name: tab\n" D "license: [a,\n\tb]\n"), 0, 0, "yaml-tab", 5,
     NULL, 0},
    {"multi", FM("name: multi\n" D "--- x\n"), 0, 0, "yaml-multi-doc", 4, NULL,
     0},
    {"cplx", FM("name: cplx\n" D "? [a]\n: b\n"), 0, 0, "yaml-key", 4, NULL, 0},
    {"list", FM("- a\n"), 0, 0, "not-mapping", 2,
     "SKILL.md frontmatter must be a YAML mapping", 0},
    {"nothing", "---\n---\nbody\n", 0, 0, "not-mapping", 1, NULL, 0},
    /* keys */
    {"extra", FM("name: extra\n" D "zeta: 1\nversion: 2\nzeta2: 3\n"), 0, 0,
     "unexpected-fields", 4,
     "Unexpected fields in frontmatter: version, zeta, zeta2. Only "
     "['allowed-tools', 'compatibility', 'description', 'license', "
     "'metadata', 'name'] are allowed.",
     0},
    {"Name", FM("Name: x\n" D), 0, 0, "name-missing", 0,
     "Missing required field in frontmatter: name", 0},
    {"ui", FM("name: ui\n" D "user-invocable: true\n"), 0, 0,
     "unexpected-fields", 4, "user-invocable", 0},
    /* name */
    {"nm", FM(D), 0, 0, "name-missing", 0, NULL, 0},
    {"ne", FM("name:\n" D), 0, 0, "name-empty", 2,
     "Field 'name' must be a non-empty string", 0},
    {"nl", FM("name:\n  - a\n" D), 0, 0, "name-empty", 2, NULL, 0},
    {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
     FM("name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "a\n" D),
     0, 0, "name-too-long", 2, "exceeds 64 character limit (65 chars)", 0},
    {"Мой", FM("name: Мой\n" D), 0, 0, "name-not-lowercase", 2,
     "Skill name 'Мой' must be lowercase", 0},
    {"-a", FM("name: -a\n" D), 0, 0, "name-hyphen-edge", 2,
     "Skill name cannot start or end with a hyphen", 0},
    {"a-", FM("name: a-\n" D), 0, 0, "name-hyphen-edge", 2, NULL, 0},
    {"a--b", FM("name: a--b\n" D), 0, 0, "name-consecutive-hyphens", 2,
     "Skill name cannot contain consecutive hyphens", 0},
    {"a_b", FM("name: a_b\n" D), 0, 0, "name-invalid-chars", 2,
     "Skill name 'a_b' contains invalid characters. Only letters, digits, "
     "and hyphens are allowed.",
     0},
    {"x\xcc\x81", FM("name: x\xcc\x81\n" D), 0, 0, "name-invalid-chars", 2,
     NULL, 0},
    {"कौशल", FM("name: कौशल\n" D), 0, 0, "name-invalid-chars", 2, NULL, 0},
    /* no spelling that YAML and upstream's line reader both read */
    {"123", FM("name: 123\n" D), 0, 0, "name-yaml-typed", 2,
     "Skill name '123' reads as a number in YAML", 0},
    {"2024-01-01", FM("name: \"2024-01-01\"\n" D), 0, 0, "name-yaml-typed", 2,
     "reads as a date", 0},
    {"on", FM("name: 'on'\n" D), 0, 0, "name-yaml-typed", 2,
     "reads as a boolean", 0},
    {"null", FM("name: \"null\"\n" D), 0, 0, "name-yaml-typed", 2, NULL, 0},
    {"1e5", FM("name: \"1e5\"\n" D), 0, 0, "name-yaml-typed", 2, NULL, 0},
    {"0x1f", FM("name: \"0x1f\"\n" D), 0, 0, "name-yaml-typed", 2,
     "such as 'skill-0x1f'", 0},
    {"dir", FM("name: other\n" D), 0, 0, "name-dir-mismatch", 2,
     "Directory name 'dir' must match skill name 'other'", 0},
    {"Bad_Name--", FM("name: Bad_Name--\n" D), 0, 0, "name-not-lowercase", 2,
     NULL, 0},
    /* description */
    {"dm", FM("name: dm\n"), 0, 0, "description-missing", 0,
     "Missing required field in frontmatter: description", 0},
    {"de", FM("name: de\ndescription: \"   \"\n"), 0, 0, "description-empty", 3,
     "Field 'description' must be a non-empty string", 0},
    {"dmap", FM("name: dmap\ndescription:\n  a: b\n"), 0, 0,
     "description-empty", 3, NULL, 0},
    /* compatibility */
    {"ct", FM("name: ct\n" D "compatibility:\n  - a\n"), 0, 0,
     "compatibility-type", 4, "Field 'compatibility' must be a string", 0},
    {"ce", FM("name: ce\n" D "compatibility: ''\n"), 0, 0,
     "compatibility-empty", 4, NULL, 0},
    /* other types */
    {"mt", FM("name: mt\n" D "metadata: x\n"), 0, 0, "metadata-type", 4,
     "Field 'metadata' must be a mapping of strings to strings", 0},
    {"mv", FM("name: mv\n" D "metadata:\n  k:\n    - v\n"), 0, 0,
     "metadata-value", 6, "value for key 'k' must be a string", 0},
    {"lt", FM("name: lt\n" D "license:\n  a: b\n"), 0, 0, "license-type", 4,
     "Field 'license' must be a string", 0},
    {"at", FM("name: at\n" D "allowed-tools:\n  - Read\n"), 0, 0,
     "allowed-tools-type", 4, NULL, 0},
    /* claude-code profile */
    {"cc",
     FM("name: cc\n" D "allowed-tools:\n  - Read\nuser-invocable: No\n"
        "disable-model-invocation: 1\nargument-hint: '[x]'\n"
        "paths: src/**\nhooks:\n  a: b\nwhen_to_use: w\n"),
     0, CC, NULL, 0, NULL, 1},
    {"cb", FM("name: cb\n" D "background: maybe\n"), 0, CC, "background-type",
     4, "must be a boolean", 0},
    {"ch", FM("name: ch\n" D "hooks: x\n"), 0, CC, "hooks-type", 4,
     "Field 'hooks' must be a mapping", 0},
    {"cm", FM("name: cm\n" D "model:\n  - a\n"), 0, CC, "model-type", 4, NULL,
     0},
    {"cp", FM("name: cp\n" D "paths:\n  a: b\n"), 0, CC, "paths-type", 4,
     "must be a string or a list of strings", 0},
    {"cx", FM("name: cx\n" D "foo: 1\n"), 0, CC, "unexpected-fields", 4,
     "Only ['agent', 'allowed-tools', 'argument-hint', 'arguments', "
     "'background', 'compatibility', 'context', 'description', "
     "'disable-model-invocation', 'disallowed-tools', 'effort', 'hooks', "
     "'license', 'metadata', 'model', 'name', 'paths', 'shell', "
     "'user-invocable', 'when_to_use'] are allowed.",
     0},
    /* body warnings */
    {"eb", "---\nname: eb\n" D "---\n\n  \n", 0, 0, "body-empty", 0, NULL, 1},
    {"mf", "---\nname: mf\n" D "---\n\nUse [x](references/x.md#top).\n", 0, 0,
     "missing-file", 6, "'references/x.md' is referenced but does not exist",
     1},
    {"mb", "---\nname: mb\n" D "---\nrun `./scripts/go.sh`, see assets/t.\n", 0,
     0, "missing-file", 5, "'scripts/go.sh'", 1},
};

static char *make_tmp(void)
{
    char t[] = "/tmp/upskill-validate.XXXXXX";

    cr_assert_not_null(mkdtemp(t));
    return strdup(t);
}

static void rm_rf(const char *path)
{
    char **names = NULL;
    up_buf p = UP_BUF_INIT;
    struct stat st;

    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
        up_fs_list(&names, NULL, path, NULL) == 0) {
        for (char **n = names; *n; n++) {
            up_buf_reset(&p);
            up_fs_join(&p, path, *n);
            rm_rf(p.data);
        }
        up_strv_free(names);
        rmdir(path);
    } else {
        unlink(path);
    }
    up_buf_release(&p);
}

/* Write data to root/rel (creating folders), with mode. */
static void put(const char *root, const char *rel, const char *data, size_t len,
                mode_t mode)
{
    up_buf p = UP_BUF_INIT, d = UP_BUF_INIT;

    up_fs_join(&p, root, rel);
    up_fs_dirname(&d, p.data);
    cr_assert_eq(up_fs_mkdir_p(d.data, 0755, NULL), 0);
    cr_assert_eq(up_fs_write_atomic(p.data, data, len, mode, NULL), 0);
    up_buf_release(&p);
    up_buf_release(&d);
}

#define PUTS(root, rel, s, mode) put(root, rel, s, strlen(s), mode)

static const up_vfinding *find(const up_vreport *r, const char *code)
{
    for (size_t i = 0; i < r->nskills; i++)
        for (size_t j = 0; j < r->skills[i].nfindings; j++)
            if (!strcmp(r->skills[i].findings[j].code, code))
                return &r->skills[i].findings[j];
    return NULL;
}

static void dump(const up_vreport *r)
{
    for (size_t i = 0; i < r->nskills; i++)
        for (size_t j = 0; j < r->skills[i].nfindings; j++)
            cr_log_info("  %s:%d %s %s", r->skills[i].findings[j].file,
                        r->skills[i].findings[j].line,
                        r->skills[i].findings[j].code,
                        r->skills[i].findings[j].msg);
}

static void check_case(const char *tmp, const struct vcase *c)
{
    up_vreport r;
    up_buf dir = UP_BUF_INIT;
    const up_vfinding *f = NULL;

    up_fs_join(&dir, tmp, c->dir);
    put(dir.data, "SKILL.md", c->text, c->len ? c->len : strlen(c->text), 0644);
    up_validate_init(&r, c->profile);
    up_validate_path(&r, dir.data);
    cr_assert_eq(r.nskills, 1, "%s: one skill", c->dir);
    if (c->code) {
        f = find(&r, c->code);
        cr_expect_not_null(f, "%s: expected %s", c->dir, c->code);
    }
    if (f && c->line >= 0)
        cr_expect_eq(f->line, c->line, "%s: line %d, want %d", c->dir, f->line,
                     c->line);
    if (f && c->msg)
        cr_expect(strstr(f->msg, c->msg), "%s: message '%s'", c->dir, f->msg);
    cr_expect_eq(r.nerrors == 0, c->valid, "%s: %zu errors", c->dir, r.nerrors);
    if (!f != !c->code || (r.nerrors == 0) != c->valid)
        dump(&r);
    up_validate_release(&r);
    up_buf_release(&dir);
}

Test(validate, rules_table)
{
    char *tmp = make_tmp();

    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
        check_case(tmp, &cases[i]);
    rm_rf(tmp);
    free(tmp);
}

/* Validate text as root/dir/SKILL.md plus extra files; return the report. */
static void run_one(up_vreport *r, const char *root, const char *dir,
                    const char *text)
{
    up_buf d = UP_BUF_INIT;

    up_fs_join(&d, root, dir);
    put(d.data, "SKILL.md", text, strlen(text), 0644);
    up_validate_init(r, UP_VP_SPEC);
    up_validate_path(r, d.data);
    up_buf_release(&d);
}

Test(validate, description_lengths)
{
    char *tmp = make_tmp();
    up_buf t = UP_BUF_INIT;
    up_vreport r;

    /* 1023 x plus two quoted spaces: 1025 raw code points */
    up_buf_adds(&t, "---\nname: d1\ndescription: \" ");
    for (int i = 0; i < 1023; i++)
        up_buf_addc(&t, 'x');
    up_buf_adds(&t, " \"\n---\nbody\n");
    run_one(&r, tmp, "d1", t.data);
    cr_assert_not_null(find(&r, "description-too-long"));
    cr_assert(strstr(find(&r, "description-too-long")->msg, "(1025 chars)"));
    up_validate_release(&r);
    /* 1024 emoji (4 bytes each) are 1024 characters: valid */
    up_buf_reset(&t);
    up_buf_adds(&t, "---\nname: d2\ndescription: ");
    for (int i = 0; i < 1024; i++)
        up_buf_adds(&t, "\xf0\x9f\x92\xa1");
    up_buf_adds(&t, "\ncompatibility: ");
    for (int i = 0; i < 501; i++)
        up_buf_addc(&t, 'c');
    up_buf_adds(&t, "\n---\nbody\n");
    run_one(&r, tmp, "d2", t.data);
    cr_assert_null(find(&r, "description-too-long"));
    cr_assert_not_null(find(&r, "compatibility-too-long"));
    cr_assert_eq(r.nerrors, 1);
    up_validate_release(&r);
    up_buf_release(&t);
    rm_rf(tmp);
    free(tmp);
}

Test(validate, body_size_warnings)
{
    char *tmp = make_tmp();
    up_buf t = UP_BUF_INIT;
    up_vreport r;

    up_buf_adds(&t, "---\nname: big\n" D "---\n");
    for (int i = 0; i < 501; i++)
        up_buf_adds(&t, "line\n");
    run_one(&r, tmp, "big", t.data);
    cr_assert_not_null(find(&r, "body-too-long"));
    cr_assert_null(find(&r, "body-too-many-tokens"));
    cr_assert_eq(r.nerrors, 0);
    up_validate_release(&r);
    up_buf_reset(&t);
    up_buf_adds(&t, "---\nname: wordy\n" D "---\n");
    for (int i = 0; i < 400; i++)
        up_buf_adds(&t, "one two three four five six seven eight nine ten\n");
    run_one(&r, tmp, "wordy", t.data);
    cr_assert_not_null(find(&r, "body-too-many-tokens"));
    cr_assert_null(find(&r, "body-too-long"));
    up_validate_release(&r);
    up_buf_release(&t);
    rm_rf(tmp);
    free(tmp);
}

Test(validate, resources)
{
    char *tmp = make_tmp();
    up_vreport r;
    const up_vfinding *f;

    PUTS(tmp, "deep/references/a.md", "# A\n\nsee [b](b.md)\n", 0644);
    PUTS(tmp, "deep/references/b.md", "# B\n", 0644);
    PUTS(tmp, "deep/scripts/run.sh", "#!/bin/sh\n", 0644);
    PUTS(tmp, "deep/scripts/ok.sh", "#!/bin/sh\n", 0755);
    PUTS(tmp, "deep/scripts/notes.md", "notes\n", 0644);
    run_one(&r, tmp, "deep",
            "---\nname: deep\n" D "---\nSee [a](references/a.md), "
            "run scripts/run.sh or scripts/ok.sh.\n");
    f = find(&r, "reference-depth");
    cr_assert_not_null(f);
    cr_assert_eq(f->line, 3);
    cr_assert(strstr(f->file, "references/a.md"));
    f = find(&r, "script-not-executable");
    cr_assert_not_null(f);
    cr_assert(strstr(f->file, "scripts/run.sh"));
    cr_assert_eq(r.skills[0].nwarnings, 2);
    cr_assert_eq(r.nerrors, 0);
    up_validate_release(&r);
    rm_rf(tmp);
    free(tmp);
}

Test(validate, paths_and_bad_input)
{
    char *tmp = make_tmp();
    up_buf p = UP_BUF_INIT;
    up_vreport r;
    int fd;

    put(tmp, "set/good/SKILL.md", FM("name: good\n" D),
        strlen(FM("name: good\n" D)), 0644);
    PUTS(tmp, "set/bad/SKILL.md", "nope\n", 0644);
    put(tmp, "set/low/skill.md", FM("name: low\n" D),
        strlen(FM("name: low\n" D)), 0644);
    PUTS(tmp, "set/notes/README.md", "x\n", 0644);
    up_fs_join(&p, tmp, "set/dirmd/SKILL.md");
    cr_assert_eq(up_fs_mkdir_p(p.data, 0755, NULL), 0);
    up_buf_reset(&p);
    up_fs_join(&p, tmp, "set/huge/SKILL.md");
    PUTS(tmp, "set/huge/SKILL.md", "", 0644);
    fd = open(p.data, O_WRONLY);
    cr_assert(fd >= 0);
    cr_assert_eq(ftruncate(fd, 50L * 1024 * 1024), 0);
    close(fd);
    up_buf_reset(&p);
    up_fs_join(&p, tmp, "set");
    up_validate_init(&r, UP_VP_SPEC);
    up_validate_path(&r, p.data);
    cr_assert_eq(r.nskills, 5); /* bad dirmd good huge low; notes skipped */
    cr_assert_eq(r.nvalid, 2);
    cr_assert_eq(r.ninvalid, 3);
    cr_assert_not_null(find(&r, "no-frontmatter"));
    cr_assert_not_null(find(&r, "not-a-file"));
    cr_assert_not_null(find(&r, "file-too-big"));
    cr_assert_not_null(find(&r, "lowercase-skill-md"));
    up_buf_adds(&p, "/good/SKILL.md");
    up_validate_path(&r, p.data);
    cr_assert_eq(r.nskills, 6);
    cr_assert_eq(r.skills[5].nfindings, 0);
    up_validate_path(&r, "/nonexistent/upskill/x");
    cr_assert_str_eq(r.skills[6].findings[0].code, "path-missing");
    up_validate_release(&r);
    up_validate_init(&r, UP_VP_SPEC);
    up_buf_reset(&p);
    up_fs_join(&p, tmp, "set/notes");
    up_validate_path(&r, p.data);
    cr_assert_str_eq(r.skills[0].findings[0].code, "missing-skill-md");
    up_buf_adds(&p, "/README.md");
    up_validate_path(&r, p.data);
    cr_assert_str_eq(r.skills[1].findings[0].code, "not-a-directory");
    up_validate_release(&r);
    up_buf_release(&p);
    rm_rf(tmp);
    free(tmp);
}

Test(validate, text_and_profiles)
{
    enum up_vprofile p;
    up_vreport r;
    up_error err;

    cr_assert_eq(up_validate_profile_parse(&p, "claude-code", &err), 0);
    cr_assert_eq(p, UP_VP_CLAUDE_CODE);
    cr_assert_eq(up_validate_profile_parse(&p, "portable", &err), UP_EUSAGE);
    cr_assert(strstr(err.msg, "'portable'"));
    cr_assert_str_eq(up_validate_profile_name(UP_VP_SPEC), "spec");
    up_validate_init(&r, UP_VP_SPEC);
    up_validate_text(&r, FM("name: t\n" D), strlen(FM("name: t\n" D)),
                     "/nowhere/t/SKILL.md", "/nowhere/t");
    cr_assert_eq(r.nerrors, 0);
    cr_assert_eq(r.nvalid, 1);
    up_validate_release(&r);
}

/*
 * What the loader refuses, validate refuses, with the loader's own words:
 * folders nested deeper than the loader walks, a corrupt skill_meta.json,
 * a symlink leaving the skill, a file name that the workspace installer
 * would refuse (a backslash, a control character, not UTF-8: issue 23
 * item 13).  The same folders without the fault pass.
 */
static const struct {
    const char *dir;  /* the skill folder */
    const char *file; /* a resource file to add, or NULL: the fault by dir */
    const char *msg;  /* in the finding's message */
} unloadable[] = {
    {"deep", NULL, "folders nested deeper than 16 levels"},
    {"corrupt", NULL, "skill_meta.json"},
    {"escape", NULL, "symlink leads outside the skill folder"},
    {"backslash", "references/notes\\old.md",
     "skill file 'references/notes\\old.md': the name holds a backslash (a "
     "folder separator on Windows); rename it"},
    {"ctrl", "references/a\033]0;x\a.md",
     "skill file 'references/a\\x1b]0;x\\x07.md': the name holds a control "
     "character; rename it"},
    {"latin1", "scripts/caf\xe9/run.sh",
     "skill file 'scripts/caf\\xe9': the name holds bytes that are not "
     "UTF-8 text"},
};

/* Make root/dir a valid skill, then give it the fault of row i. */
static void make_faulty(const char *root, size_t i)
{
    const char *dir = unloadable[i].dir;
    up_buf d = UP_BUF_INIT, deep = UP_BUF_INIT, link = UP_BUF_INIT;

    up_fs_join(&d, root, dir);
    up_buf_addf(&deep, "%s/references", dir);
    for (int k = 0; k < 17; k++)
        up_buf_adds(&deep, "/d");
    up_buf_adds(&deep, "/a.md");
    up_fs_join(&link, d.data, "references");
    if (unloadable[i].file)
        PUTS(d.data, unloadable[i].file, "x", 0644);
    else if (!strcmp(dir, "deep"))
        PUTS(root, deep.data, "x", 0644);
    else if (!strcmp(dir, "corrupt"))
        PUTS(d.data, "skill_meta.json", "{\"metadata\": {\"ver", 0644);
    else
        cr_assert_eq(symlink("/", link.data), 0);
    up_buf_release(&d);
    up_buf_release(&deep);
    up_buf_release(&link);
}

Test(validate, what_the_loader_refuses)
{
    char *tmp = make_tmp();
    up_buf text = UP_BUF_INIT;

    for (size_t i = 0; i < sizeof(unloadable) / sizeof(*unloadable); i++) {
        up_vreport r;
        const up_vfinding *f;

        up_buf_reset(&text);
        up_buf_addf(&text, "---\nname: %s\n" D "---\nbody\n",
                    unloadable[i].dir);
        run_one(&r, tmp, unloadable[i].dir, text.data);
        cr_assert_eq(r.nerrors, 0, "%s: valid before the fault",
                     unloadable[i].dir);
        up_validate_release(&r);
        make_faulty(tmp, i);
        run_one(&r, tmp, unloadable[i].dir, text.data);
        f = find(&r, "unloadable");
        cr_assert_not_null(f, "%s: refused", unloadable[i].dir);
        cr_assert_eq(f->sev, UP_V_ERROR);
        cr_assert(strstr(f->msg, unloadable[i].msg), "%s: %s",
                  unloadable[i].dir, f->msg);
        up_validate_release(&r);
    }
    up_buf_release(&text);
    rm_rf(tmp);
    free(tmp);
}
