/*
 * Unit tests for Harbor task folders (src/lib/cases/harbor*.c): the
 * lenient task.toml reader (what it keeps, what it names file:line),
 * the Dockerfile analysis (WORKDIR, COPY, mkdir, apt packages, what
 * blocks a task offline) and the check of packages against a dpkg
 * status file; the sandbox's rule for where a workspace may sit.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cases/suite_lib.h"
#include "lib/cases/assert.h"
#include "upskill/fs.h"
#include "upskill/harbor.h"
#include "upskill/sandbox.h"

static int parse(up_toml *t, const char *text, up_error *e)
{
    memset(t, 0, sizeof(*t));
    return up_toml_parse(t, text, strlen(text), "task.toml", e);
}

Test(harbor, toml_keeps_tables_values_and_unknown_keys)
{
    const char *text = "version = \"1.0\"  # a comment\n"
                       "[metadata]\n"
                       "tags = [\"a\", \"b ] c\",\n  \"d\"]\n"
                       "notes = \"\"\"\nline one\nline # two\n\"\"\"\n"
                       "lit = 'C:\\path'\n"
                       "esc = \"a\\\"b\\n\"\n"
                       "[verifier]\n"
                       "timeout_sec = 600.0\n"
                       "[environment]\n"
                       "allow_internet = false\n"
                       "\"quoted key\" = { x = 1 }\n"
                       "when = 2026-01-02\n"
                       "[[steps]]\n"
                       "name = \"one\"\n";
    up_toml t;
    up_error e;
    const up_toml_entry *v;

    cr_assert_eq(parse(&t, text, &e), 0, "%s", e.msg);
    v = up_toml_get(&t, "", "version");
    cr_assert(v && v->type == UP_TOML_STRING && !strcmp(v->value, "1.0"));
    v = up_toml_get(&t, "metadata", "tags");
    cr_assert(v && v->type == UP_TOML_ARRAY);
    cr_expect_str_eq(v->value, "[\"a\", \"b ] c\",\n  \"d\"]");
    cr_expect_str_eq(up_toml_get(&t, "metadata", "notes")->value,
                     "line one\nline # two\n");
    cr_expect_str_eq(up_toml_get(&t, "metadata", "lit")->value, "C:\\path");
    cr_expect_str_eq(up_toml_get(&t, "metadata", "esc")->value, "a\"b\n");
    v = up_toml_get(&t, "verifier", "timeout_sec");
    cr_assert(v && v->type == UP_TOML_NUMBER && v->line == 12);
    v = up_toml_get(&t, "environment", "allow_internet");
    cr_assert(v && v->type == UP_TOML_BOOL && !strcmp(v->value, "false"));
    cr_expect_eq(up_toml_get(&t, "environment", "quoted key")->type,
                 UP_TOML_OTHER);
    cr_expect_eq(up_toml_get(&t, "environment", "when")->type, UP_TOML_OTHER);
    cr_expect_str_eq(up_toml_get(&t, "steps", "name")->value, "one");
    cr_expect_null(up_toml_get(&t, "verifier", "missing"));
    up_toml_release(&t);
}

Test(harbor, toml_names_file_and_line_of_what_it_cannot_read)
{
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"a = 1\nb =\n", "'task.toml':2: expected a value after '='"},
        {"a = 1\n\njust words\n", "'task.toml':3: expected key = value"},
        {"x = \"open\n", "'task.toml':1: a string that does not end"},
        {"x = [1,\n2\n", "'task.toml':1: an array or inline table that"},
        {"[table\n", "'task.toml':1: expected a table name"},
        {"x = 1 2\n", "'task.toml':1: expected the end of the line"},
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        up_toml t;
        up_error e;

        cr_expect_eq(parse(&t, bad[i].text, &e), UP_EPARSE, "%zu", i);
        cr_expect(strstr(e.msg, bad[i].msg) != NULL, "%zu: %s", i, e.msg);
        up_toml_release(&t);
    }
}

Test(harbor, dockerfile_workdir_copies_mkdir_and_packages)
{
    const char *text =
        "FROM ubuntu:24.04\n"
        "ENV DEBIAN_FRONTEND=noninteractive\n"
        "RUN apt-get update && \\\n"
        "    DEBIAN_FRONTEND=noninteractive apt-get install -y \\\n"
        "    --no-install-recommends python3-numpy poppler-utils && \\\n"
        "    rm -rf /var/lib/apt/lists/*\n"
        "WORKDIR /root\n"
        "RUN mkdir -p /root/out logs\n"
        "COPY data.csv ./input/\n"
        "COPY ./docs/ /root/docs\n"
        "COPY a.txt b.bin /root/two/\n"
        "COPY skills /root/.claude/skills\n"
        "COPY skills/x /root/.codex/skills/x\n"
        "WORKDIR app\n";
    up_docker d = {0};

    up_docker_parse(&d, text, "Dockerfile");
    cr_expect_str_eq(d.workdir, "/root/app");
    cr_expect_eq(d.blocked.len, 0, "%s", d.blocked.data);
    cr_assert_eq(d.napt, 2);
    cr_expect_str_eq(d.apt[0], "python3-numpy");
    cr_expect_str_eq(d.apt[1], "poppler-utils");
    cr_assert_eq(d.nmkdirs, 2);
    cr_expect_str_eq(d.mkdirs[0], "/root/out");
    cr_expect_str_eq(d.mkdirs[1], "/root/logs");
    cr_assert_eq(d.ncopies, 4, "the skills are not copied");
    cr_expect_str_eq(d.copies[0].src, "data.csv");
    cr_expect_str_eq(d.copies[0].dest, "/root/input");
    cr_expect_eq(d.copies[0].into, 1);
    cr_expect_str_eq(d.copies[1].src, "docs");
    cr_expect_str_eq(d.copies[1].dest, "/root/docs");
    cr_expect_eq(d.copies[1].into, 0);
    cr_expect_eq(d.copies[2].into, 1, "several sources go into a folder");
    cr_expect_str_eq(d.copies[3].src, "b.bin");
    up_docker_release(&d);
}

Test(harbor, dockerfile_comments_name_no_package)
{
    const char *text = "FROM debian:12\n"
                       "RUN apt-get install -y a \\\n"
                       "    # the spreadsheet tools\n"
                       "    b # and c is not one\n"
                       "RUN apt-get install -y d # e\n";
    up_docker d = {0};

    up_docker_parse(&d, text, "Dockerfile");
    cr_expect_eq(d.blocked.len, 0, "%s", d.blocked.data);
    cr_assert_eq(d.napt, 3);
    cr_expect_str_eq(d.apt[0], "a");
    cr_expect_str_eq(d.apt[1], "b");
    cr_expect_str_eq(d.apt[2], "d");
    up_docker_release(&d);
}

Test(harbor, dockerfile_steps_that_block_offline_are_named)
{
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"FROM x\nRUN pip install -r r.txt\n",
         "line 2: pip install needs the network (a requirements file"},
        {"RUN python3 -m pip install git+https://x/y\n",
         "pip install needs the network"},
        {"RUN pipx install x\n", "pipx needs the network"},
        {"RUN uv pip install x\n", "uv needs the network"},
        {"RUN npm i -g y\n", "npm needs the network"},
        {"RUN curl -LO https://x/y.tgz && tar xf y.tgz\n",
         "curl needs the network"},
        {"RUN git clone https://x\n", "git needs the network"},
        {"ADD https://x/y.tar.gz /root/\n", "https://x/y.tar.gz needs the "
                                            "network"},
        {"COPY --from=build /out /root/out\n", "multi-stage"},
        {"RUN make install\n", "make (a RUN step) is not emulated"},
        {"RUN [\"sh\", \"-c\", \"true\"]\n", "(exec form) is not emulated"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        up_docker d = {0};

        up_docker_parse(&d, cases[i].text, "Dockerfile");
        cr_expect(d.blocked.len && strstr(d.blocked.data, cases[i].why),
                  "%zu: %s", i, d.blocked.data ? d.blocked.data : "(none)");
        up_docker_release(&d);
    }
}

Test(harbor, packages_checked_against_dpkg_status)
{
    char path[] = "/tmp/upskill-dpkg-XXXXXX";
    const char *status = "Package: python3\n"
                         "Status: install ok installed\n"
                         "Version: 3.11\n\n"
                         "Package: python3-numpy\n"
                         "Status: deinstall ok config-files\n\n"
                         "Package: python3-numpy-dev\n"
                         "Status: install ok installed\n";
    const char *pkgs[] = {"python3:amd64", "python3-numpy", "python3=3.11",
                          "poppler-utils", "python3-numpy-dev"};
    up_buf miss = UP_BUF_INIT;
    int fd = mkstemp(path);

    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, status, strlen(status)), (ssize_t)strlen(status));
    close(fd);
    cr_expect_eq(up_harbor_missing_packages(path, pkgs, 5, &miss), 2);
    cr_expect_str_eq(miss.data, "python3-numpy poppler-utils");
    up_buf_reset(&miss);
    unlink(path);
    cr_expect_eq(up_harbor_missing_packages(path, pkgs, 1, &miss), 1,
                 "no status file: nothing is known installed");
    up_buf_release(&miss);
}

Test(harbor, workspace_places_in_the_sandbox)
{
    static const char *const ok[] = {"/root",     "/app", "/home/user/work",
                                     "/opt/task", "/x",   "/ab"};
    static const char *const bad[] = {
        "/",      "/usr",    "/usr/src/app", "/tmp/x",
        "/tests", "/logs",   "/etc/app",     "relative",
        "/app/",  "/a/../b", "/a//b",        "/proc/self",
        "/lib64", "/app/.",  "/app/..",      "/.."};

    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        cr_expect(up_sandbox_workdir_ok(ok[i]), "%s", ok[i]);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cr_expect(!up_sandbox_workdir_ok(bad[i]), "%s", bad[i]);
}

/* The verifier assertion: its default command and threshold, a given
 * threshold, and what it refuses. */
Test(harbor, verifier_assertion_parse)
{
    up_assert_list l;
    up_error e;

    up_assert_list_init(&l);
    cr_assert_eq(up_assert_list_parse(&l,
                                      "[{\"type\": \"verifier\"}, {\"type\": "
                                      "\"verifier\", \"threshold\": 0.25, "
                                      "\"value\": \"sh /tests/run.sh\"}]",
                                      "t.json", "assert", &e),
                 0, "%s", e.msg);
    cr_assert_eq(l.n, 2);
    cr_expect(up_assert_is_check(&l.items[0]) &&
              up_assert_is_verifier(&l.items[0]));
    cr_expect_str_eq(l.items[0].value, UP_ASSERT_VERIFIER_CMD);
    cr_expect(l.items[0].threshold == 1.0);
    cr_expect_str_eq(l.items[1].value, "sh /tests/run.sh");
    cr_expect(l.items[1].threshold == 0.25);
    up_assert_list_release(&l);
    cr_expect_eq(up_assert_list_parse(&l,
                                      "[{\"type\": \"verifier\", "
                                      "\"threshold\": \"1\"}]",
                                      "t.json", "assert", &e),
                 UP_EPARSE);
    cr_expect(strstr(e.msg, "threshold: expected a number") != NULL, "%s",
              e.msg);
    cr_expect_eq(up_assert_list_parse(&l, "[{\"type\": \"not-verifier\"}]",
                                      "t.json", "assert", &e),
                 UP_EPARSE);
    up_assert_list_parse(&l, "[{\"type\": \"command\", \"value\": \"true\"}]",
                         "t.json", "assert", &e);
    cr_expect(!up_assert_is_verifier(&l.items[0]));
    up_assert_list_release(&l);
}

/* The fixture tasks read into cases: the runnable ones with skills, with
 * their seed (the binary file byte for byte), check files, verifier,
 * workdir, limits and skills; the suite's hash covers the seed's exact
 * bytes (one changed byte of a binary file changes it). */
Test(harbor, fixture_tasks_become_cases)
{
    static const char blob[] =
        "\x00\x01\xff\xfePNG\x00\x0d\x0a\x1a\x0a\x80\x81";
    up_harbor_set set = {0};
    up_suite s;
    up_error e;
    const up_case *c;
    const up_fs_entry *b = NULL;
    char before[65], after[65];

    up_suite_init(&s);
    cr_assert_eq(up_harbor_load(&set, &s, "tests/fixtures/harbor", &e), 0, "%s",
                 e.msg);
    cr_assert_eq(set.n, 4);
    cr_assert_eq(s.ncases, 2, "half-credit and report-app");
    c = &s.cases[1];
    cr_expect_str_eq(up_case_task_of(c)->workdir, "/app");
    cr_expect_eq(up_case_task_of(c)->run_wall_s, 120);
    cr_expect_eq(up_case_task_of(c)->check_wall_s, 60);
    cr_expect_eq(up_case_task_of(c)->nskills, 2);
    cr_expect_str_eq(up_case_task_of(c)->skills[0].name, "byte-counter");
    cr_expect(strstr(c->assert_json, "\"verifier\"") != NULL);
    for (size_t i = 0; i < up_case_task_of(c)->nseed; i++)
        if (!strcmp(up_case_task_of(c)->seed[i].path, "data/blob.bin"))
            b = &up_case_task_of(c)->seed[i];
    cr_assert_not_null(b);
    cr_expect_eq(b->len, sizeof(blob) - 1);
    cr_expect_eq(memcmp(b->data, blob, b->len), 0, "binary-safe");
    cr_expect_eq(up_case_task_of(c)->ncheck_files, 3,
                 "test.sh, test_outputs.py, expected.bin");
    cr_expect(strstr(s.cases[0].assert_json, "\"threshold\":0.5") != NULL, "%s",
              s.cases[0].assert_json);
    up_suite_sha256(&s, before);
    ((char *)b->data)[13] = '\x7f';
    up_suite_sha256(&s, after);
    cr_expect_str_neq(before, after);
    up_suite_release(&s);
    up_harbor_release(&set);
}

Test(harbor, pip_install_needs_debian_packages)
{
    up_docker d = {0};

    up_docker_parse(&d,
                    "RUN pip3 install --break-system-packages -i URL "
                    "numpy==1.26.4 scikit-learn>=1 Foo_Bar.baz pip \\\n"
                    "  pytest-json-ctrf==0.3.5 pandas[excel]\n"
                    "RUN python3 -m pip install -U PyYAML\n",
                    "Dockerfile");
    cr_expect(!d.blocked.len, "%s", d.blocked.data);
    cr_assert_eq(d.napt, 5);
    cr_expect_str_eq(d.apt[0], "python3-numpy");
    cr_expect_str_eq(d.apt[1], "python3-sklearn");
    cr_expect_str_eq(d.apt[2], "python3-foo-bar-baz");
    cr_expect_str_eq(d.apt[3], "python3-pandas");
    cr_expect_str_eq(d.apt[4], "python3-yaml");
    up_docker_release(&d);
}

Test(harbor, offline_verifier_runs_test_sh_without_its_installs)
{
    static const char *const pip_sh =
        "#!/bin/bash\npip3 install --break-system-packages pytest \\\n"
        "  pytest-json-ctrf\nmkdir -p /logs/verifier\n"
        "pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA "
        "-v\nif [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; "
        "else echo 0 > /logs/verifier/reward.txt; fi\n";
    static const char *const uvx_sh =
        "curl -LsSf https://astral.sh/uv/install.sh | sh\n"
        "source $HOME/.local/bin/env\nuvx \\\n"
        "  --with pytest==8.4.1 -w x \\\n  python -m pytest --ctrf x.json "
        "/tests/t.py -rA 2>&1 | tee log\n"
        "python3 << 'EOF'\npip = 1\nEOF\ncd /tests && uvx --with numpy "
        "python3 s.py\n";
    up_buf cmd = UP_BUF_INIT;

    cr_assert(up_harbor_offline_verifier(pip_sh, &cmd));
    cr_expect(strstr(cmd.data, "exit 1; }; exec bash -c '"), "%s", cmd.data);
    cr_expect(strstr(cmd.data,
                     "\n:\nmkdir -p /logs/verifier\npytest --ctrf "
                     "/logs/verifier/ctrf.json /tests/test_outputs.py"),
              "%s", cmd.data);
    cr_expect(strstr(cmd.data, "' /tests/test.sh"), "%s", cmd.data);
    up_buf_reset(&cmd);
    cr_assert(up_harbor_offline_verifier(uvx_sh, &cmd));
    cr_expect(strstr(cmd.data, "\n:\n:\npython -m pytest --ctrf x.json "
                               "/tests/t.py -rA 2>&1 | tee log\n"),
              "%s", cmd.data);
    cr_expect(strstr(cmd.data, "python3 << '\\''EOF'\\''\npip = 1\nEOF\n"),
              "a here-document is kept as it is: %s", cmd.data);
    cr_expect(strstr(cmd.data, "cd /tests && python3 s.py\n"), "%s", cmd.data);
    cr_expect(strstr(cmd.data, "python() { python3"), "%s", cmd.data);
    up_buf_reset(&cmd);
    /* offline already: as it is */
    cr_expect(!up_harbor_offline_verifier(
        "pytest /tests/t.py\necho 1 > /logs/verifier/reward.txt\n", &cmd));
    cr_expect(!up_harbor_offline_verifier(NULL, &cmd));
    cr_expect(!cmd.len);
    up_buf_release(&cmd);
}

Test(harbor, oracle_skills_copied_where_the_dockerfile_copies_them)
{
    up_docker d = {0};
    up_buf b = UP_BUF_INIT;

    up_docker_parse(&d,
                    "WORKDIR /root\nCOPY skills /root/.claude/skills\n"
                    "COPY skills/ .agents/skills\nCOPY skills /etc/skills\n",
                    "Dockerfile");
    cr_assert_eq(d.nskill_dests, 3);
    up_harbor_skill_links(&b, &d, "/root");
    cr_expect_str_eq(
        b.data, "mkdir -p '/root/.claude/skills' && cp -R /solution/.skills/. "
                "'/root/.claude/skills'; mkdir -p '/root/.agents/skills' && "
                "cp -R /solution/.skills/. '/root/.agents/skills'; mkdir -p "
                "'/etc/skills' && cp -R /solution/.skills/. '/etc/skills'; ");
    up_buf_release(&b);
    up_docker_release(&d);
}

Test(harbor, env_is_read_expanded_and_bounded)
{
    up_docker d = {0};
    up_buf big = UP_BUF_INIT;

    up_docker_parse(&d,
                    "ENV A=x WHO=\"the world\"\nENV B ${A}y $A $NONE\n"
                    "ENV PATH=/opt/bin:$PATH\nENV A=z\n",
                    "Dockerfile");
    cr_expect(!d.blocked.len, "%s", d.blocked.data);
    cr_assert_eq(d.nenv, 4);
    cr_expect_str_eq(d.env[0], "A=z");
    cr_expect_str_eq(d.env[1], "WHO=the world");
    cr_expect_str_eq(d.env[2], "B=xy x ");
    cr_expect_str_eq(d.env[3], "PATH=/opt/bin:/usr/local/sbin:/usr/local/bin:"
                               "/usr/sbin:/usr/bin:/sbin:/bin");
    up_docker_release(&d);
    /* a value that doubles at each line stops at its limit */
    up_buf_adds(&big, "ENV A=0123456789abcdef\n");
    for (int i = 0; i < 20; i++)
        up_buf_adds(&big, "ENV A=$A$A\n");
    up_docker_parse(&d, big.data, "Dockerfile");
    cr_expect(strstr(d.blocked.data, "ENV A is over UP_HARBOR_ENV_BYTES"), "%s",
              d.blocked.data);
    cr_expect(strlen(d.env[0]) <= UP_HARBOR_ENV_BYTES + 2);
    up_docker_release(&d);
    up_buf_release(&big);
}

/* A test.sh that sets PATH or PYTHONPATH itself is rewritten even
 * without a network step (issue 37 item 3): each exported or plain
 * setting is followed by __upskill_paths, a setting for one command
 * runs it through __upskill_run; a here-document and a line that only
 * reads the variable are kept as they are. */
Test(harbor, offline_verifier_moves_what_test_sh_exports)
{
    static const struct {
        const char *line, *want;
    } cases[] = {
        {"export PYTHONPATH=\"/root/src:$PYTHONPATH\"\n",
         "\nexport PYTHONPATH=\"/root/src:$PYTHONPATH\"; __upskill_paths\n"},
        {"export PATH=/root/bin:$PATH PYTHONPATH=/x && pytest\n",
         "\nexport PATH=/root/bin:$PATH PYTHONPATH=/x; __upskill_paths && "
         "pytest\n"},
        {"PYTHONPATH=/root/src python3 /tests/g.py\n",
         "\nPYTHONPATH=/root/src __upskill_run python3 /tests/g.py\n"},
        {"  PATH=\"$(pwd)/bin:$PATH\"\n",
         "\n  PATH=\"$(pwd)/bin:$PATH\"; __upskill_paths\n"},
        {"echo $PYTHONPATH\n", "\necho $PYTHONPATH\n"},
        {"cat <<EOF\nexport PATH=/root/bin\nEOF\n",
         "\ncat <<EOF\nexport PATH=/root/bin\nEOF\n"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        up_buf cmd = UP_BUF_INIT, sh = UP_BUF_INIT;
        int moved = strstr(cases[i].line, "PATH=") != NULL;

        up_buf_addf(&sh, "#!/bin/bash\n%s", cases[i].line);
        cr_expect_eq(up_harbor_offline_verifier(sh.data, &cmd), moved, "%s",
                     cases[i].line);
        if (moved) {
            cr_expect(strstr(cmd.data, cases[i].want), "%s", cmd.data);
            cr_expect(strstr(cmd.data, "__upskill_paths() {"), "%s", cmd.data);
        }
        up_buf_release(&cmd);
        up_buf_release(&sh);
    }
}
