/*
 * Internal interface of the command-line layer: the option tables that
 * parse argv and print --help, terminal output helpers, and the commands.
 * Only files in src/cli include this.
 */
#ifndef UPSKILL_CLI_H
#define UPSKILL_CLI_H

#include <stdio.h>

#include <jansson.h>

#include "upskill/upskill.h"

/* Exit codes (architecture §7). */
enum {
    EXIT_OK = 0,
    EXIT_GATE = 1,
    EXIT_USAGE = 2,
    EXIT_INPUT = 3,
    EXIT_PROVIDER = 4,
    EXIT_IO = 5, /* results could not be saved (disk full); resumable */
    EXIT_INTR = 130
};

/* ---- options ---------------------------------------------------------- */

enum opt_kind {
    OPT_FLAG,   /* int *: set to 1 */
    OPT_STRING, /* const char **: last one wins */
    OPT_LIST,   /* struct strlist *: repeatable */
    OPT_INT,    /* long *: strtol, fully checked */
    OPT_DOUBLE  /* double *: strtod, fully checked */
};

/* The text of a number macro (a default in a help line). */
#define CLI_STR_(x) #x
#define CLI_STR(x)  CLI_STR_(x)

/* --max-turns' help; the default is the agent module's. */
#define HELP_MAX_TURNS                                                         \
    "agent mode: model turns per conversation (" CLI_STR(UP_AGENT_MAX_TURNS) ")"

struct strlist {
    const char **v; /* borrowed from argv */
    size_t n, cap;
};

struct opt {
    char shortname;       /* 0 when none */
    const char *longname; /* without "--" */
    enum opt_kind kind;
    void *value;
    const char *argname; /* shown in help, e.g. "DIR" */
    const char *help;
};

struct cmd_spec {
    const char *name;       /* e.g. "validate" */
    const char *args;       /* positional synopsis, e.g. "PATH..." */
    const char *summary;    /* one line */
    const char *details;    /* paragraph printed after options, or NULL */
    const struct opt *opts; /* terminated by an entry with longname NULL */
    int min_args, max_args; /* max_args < 0: unlimited */
};

/*
 * Parse argv[1..] by spec.  Positional arguments are left in *args (argv
 * pointers, NULL-terminated, *nargs of them).  --help/-h prints help and
 * returns 1; --no-color is always accepted.  A usage error prints a
 * message and returns -1.  Returns 0 otherwise.
 */
int opt_parse(const struct cmd_spec *spec, int argc, char **argv, char ***args,
              int *nargs);
void opt_help(const struct cmd_spec *spec, FILE *fp);

/*
 * A path argument that must exist, as upstream's click.Path(exists=True)
 * takes it: 0 when path is NULL or exists, else a usage error printed
 * ("SKILL_PATH 'x' does not exist") and -1 (exit 2).
 */
int opt_need_path(const struct cmd_spec *spec, const char *what,
                  const char *path);
void strlist_release(struct strlist *l);

/* ---- output ----------------------------------------------------------- */

enum color {
    C_RESET,
    C_BOLD,
    C_DIM,
    C_RED,
    C_GREEN,
    C_YELLOW,
    C_BLUE,
    C_CYAN,
    C_MAGENTA
};

/* Decide colour from the TTY, NO_COLOR and --no-color (call once). */
void out_init(int no_color);
void out_disable_color(void);
/* The escape sequence for c, or "" when colour is off. */
const char *out_c(enum color c);
/* stderr is a terminal: progress lines may redraw themselves. */
int out_err_is_tty(void);
/*
 * s (text from outside: a name, a path, a model's words) with control
 * characters written as \xNN and newlines too, for printing on one line.
 * The string is valid until eight more calls or out_finish; NULL gives "".
 */
const char *out_safe(const char *s);
/* Write multi-line outside text to fp, escaped, newlines and tabs kept. */
void out_text(FILE *fp, const char *s);
/* "upskill: error: ..." on stderr, control characters escaped. */
void out_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void out_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Report err and return the exit code for its code. */
int out_fail(const up_error *err);
/* Flush stdout; on a write error say so and return 1.  Call before exit. */
int out_finish(void);
/* Print a JSON value to stdout, pretty, with a final newline. */
void out_json(void *json);

/* ---- rendering (render.c) -------------------------------------------- */

/* A 20-cell bar for v in [0,1], banker's rounding as upstream. */
void render_bar(FILE *fp, double v);
/* "60%" */
void render_pct(char *out, size_t n, double v);
/* "+40%", "-5%", "+0%" */
void render_lift(char *out, size_t n, double lift);
/* A lift's interval "[+0.4, +30]": each bound on its true side of 0 and
 * of +/-margin (up_stats_fmt_bound). */
const char *render_ci(char *out, size_t n, const up_paired *l, double margin);
#define RENDER_CI_LEN (2 * UP_STATS_FMT_LEN + 8)
/* A lift (a share) as points, and its interval, in a buffer that lives to
 * the end of the enclosing block: printf("%s", LIFT_FMT(x, m)). */
#define LIFT_FMT(x, m)                                                         \
    up_stats_fmt_bound((char[UP_STATS_FMT_LEN]){0}, UP_STATS_FMT_LEN, (x), (m))
#define CI_FMT(l, m)                                                           \
    render_ci((char[RENDER_CI_LEN]){0}, RENDER_CI_LEN, (l), (m))
/* 12345 -> "12,345" */
void render_thousands(char *out, size_t n, long v);
/* "  baseline   <bar>    60%<tail>" */
void render_arm(FILE *fp, const char *label, double rate, const char *tail);
/* An arm's notes on stdout: "  NAME: 3 of 20 conversations errored,
 * excluded ...", and those that failed as their request outgrew the
 * context; nothing when neither happened. */
void render_arm_errors(const char *name, const up_arm_totals *t);

/*
 * A box-drawn table: head has ncols cells, cells nrows x ncols (row by
 * row).  Widths count code points; colour escapes in cells are allowed.
 */
void render_table(FILE *fp, const char *const *head, const char *const *cells,
                  size_t ncols, size_t nrows);

/*
 * given, else the config's runs_dir (runs = 1) or skills_dir, else dflt.
 * The string lives until exit.
 */
const char *cli_config_dir(const char *given, int runs, const char *dflt);

/* The configuration, loaded once (defaults and a warning when it cannot
 * be read); released at exit. */
const up_config *cli_config(void);

/* ---- commands --------------------------------------------------------- */

/*
 * upskill config's document (config_report.c): every setting with its
 * value and source, aliases, prices and warnings; and its text form.
 */
json_t *config_report_build(const up_config *cfg);
void config_report_text(const up_config *cfg, const json_t *doc);

/* upskill list's renderers (list_report.c). */
void list_print_tree(const up_catalog *l, const char *dir, int verbose);
void list_print_json(const up_catalog *l, const char *dir);

/*
 * upskill runs' renderer (runs_report.c): nv comparisons out of nruns
 * runs, as bars or a matrix by pass rate (or by tokens), or as JSON with
 * the messages about skipped run files (NULL-terminated).
 */
void runs_print(const up_compare *v, size_t nv, size_t nruns, int tokens,
                int json, char *const *skipped);

/*
 * upskill runs --case (runs_case.c): the artifacts of case kase in batch
 * (NULL: the newest) of the runs folder dir, of the models whose key is
 * one of keys (none: all), as readable transcripts with their verdicts,
 * or as JSON.  UP_ENOTFOUND when there is none.
 */
int runs_case(const char *dir, const char *batch, long kase,
              const char *const *keys, size_t nkeys, int json, up_error *err);

/*
 * The commands: each cmd_<name>.c has its run function and its option
 * table (cmd_<name>_spec), whose summary is the one `upskill --help` and
 * `upskill <name> --help` both print (trace's spec is its summarize
 * subcommand's).
 */
int cmd_validate(int argc, char **argv);
extern const struct cmd_spec cmd_validate_spec;
int cmd_list(int argc, char **argv);
extern const struct cmd_spec cmd_list_spec;
int cmd_runs(int argc, char **argv);
extern const struct cmd_spec cmd_runs_spec;
int cmd_plot(int argc, char **argv);
extern const struct cmd_spec cmd_plot_spec;
int cmd_report(int argc, char **argv);
extern const struct cmd_spec cmd_report_spec;
int cmd_select(int argc, char **argv);
extern const struct cmd_spec cmd_select_spec;
int cmd_compare(int argc, char **argv);
extern const struct cmd_spec cmd_compare_spec;
int cmd_merge(int argc, char **argv);
extern const struct cmd_spec cmd_merge_spec;
int cmd_models(int argc, char **argv);
extern const struct cmd_spec cmd_models_spec;
int cmd_eval(int argc, char **argv);
extern const struct cmd_spec cmd_eval_spec;
int cmd_benchmark(int argc, char **argv);
extern const struct cmd_spec cmd_benchmark_spec;
int cmd_config(int argc, char **argv);
extern const struct cmd_spec cmd_config_spec;
int cmd_cache(int argc, char **argv);
extern const struct cmd_spec cmd_cache_spec;
int cmd_generate(int argc, char **argv);
extern const struct cmd_spec cmd_generate_spec;
int cmd_trace(int argc, char **argv);
extern const struct cmd_spec cmd_trace_spec;

#endif
