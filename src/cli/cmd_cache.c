/*
 * upskill cache stats|clear: look at or empty the response cache named by
 * the config (cache.path).  A cache that does not exist yet is shown as
 * empty and is not created.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli.h"

static long older_than = -1;
static int json_out;

static const struct opt opts[] = {
    {0, "older-than", OPT_INT, &older_than, "DAYS",
     "clear: only entries stored at least DAYS days ago"},
    {0, "json", OPT_FLAG, &json_out, NULL, "print JSON"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_cache_spec = {
    "cache",
    "stats|clear",
    "show or empty the response cache",
    "stats: entries, size and age of the cache at cache.path.\n"
    "clear: remove every entry, or with --older-than only the old ones;\n"
    "  a damaged cache file is replaced by an empty one.\n"
    "See docs/cache.md.",
    opts,
    1,
    1};

/* "2025-01-31T12:00:00Z", or "-" for 0. */
static void stamp(char out[32], time_t t)
{
    struct tm tm;

    if (!t || !gmtime_r(&t, &tm))
        snprintf(out, 32, "-");
    else
        strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_t *stamp_json(time_t t)
{
    char s[32];

    stamp(s, t);
    return t ? json_string(s) : json_null();
}

static void stats_json(const up_config *cfg, const up_cache_info *st)
{
    json_t *o = json_pack(
        "{s:s, s:b, s:I, s:I, s:I, s:o, s:o, s:I}", "path",
        cfg->cache_path.value, "enabled", (int)cfg->cache_enabled.value,
        "entries", (json_int_t)st->entries, "bytes", (json_int_t)st->bytes,
        "file_bytes", (json_int_t)st->file_bytes, "oldest",
        stamp_json(st->oldest), "newest", stamp_json(st->newest), "ttl_days",
        (json_int_t)cfg->cache_ttl_days.value);

    out_json(o);
    json_decref(o);
}

static void stats_text(const up_config *cfg, const up_cache_info *st)
{
    char a[32], b[32], old[32], new[32];

    render_thousands(a, sizeof(a), (long)st->bytes);
    render_thousands(b, sizeof(b), (long)st->file_bytes);
    stamp(old, st->oldest);
    stamp(new, st->newest);
    printf("cache    %s%s\n", out_safe(cfg->cache_path.value),
           cfg->cache_enabled.value ? "" : " (disabled by the config)");
    printf("entries  %zu\n", st->entries);
    printf("size     %s bytes of answers, file %s bytes\n", a, b);
    printf("oldest   %s\nnewest   %s\n", old, new);
    if (cfg->cache_ttl_days.value > 0)
        printf("expiry   %ld days\n", cfg->cache_ttl_days.value);
    else
        printf("expiry   never\n");
}

static int do_stats(up_cache *c, const up_config *cfg, up_error *err)
{
    up_cache_info st;
    int rc = 0;

    memset(&st, 0, sizeof(st));
    if (c)
        rc = up_cache_stats(c, &st, err);
    if (!rc && json_out)
        stats_json(cfg, &st);
    else if (!rc)
        stats_text(cfg, &st);
    return rc;
}

static int do_clear(up_cache *c, const up_config *cfg, up_error *err)
{
    size_t removed = 0;
    int rc = c ? up_cache_clear(c, older_than, &removed, err) : 0;
    json_t *o;

    if (rc)
        return rc;
    if (!json_out) {
        printf("removed %zu entr%s from %s\n", removed,
               removed == 1 ? "y" : "ies", out_safe(cfg->cache_path.value));
        return 0;
    }
    o = json_pack("{s:s, s:I}", "path", cfg->cache_path.value, "removed",
                  (json_int_t)removed);
    out_json(o);
    json_decref(o);
    return 0;
}

static const struct action {
    const char *name;
    int (*run)(up_cache *c, const up_config *cfg, up_error *err);
} actions[] = {
    {"stats", do_stats},
    {"clear", do_clear},
    {NULL, NULL},
};

/*
 * Open the cache for act.  `clear` (of everything) replaces a file that
 * is no readable cache (damaged, not a database) by a fresh one, saying
 * so; a locked or unreadable one stays an error.
 */
static int open_for(up_cache **c, const struct action *act,
                    const up_config *cfg, up_error *err)
{
    const char *path = cfg->cache_path.value;
    long wait_ms = (long)(cfg->cache_lock_timeout.value * 1000);
    int rc = up_cache_open(c, path, cfg->cache_ttl_days.value, wait_ms, err);

    if (rc != UP_EPARSE || act->run != do_clear || older_than != -1)
        return rc;
    out_warn("%s; removing it", err->msg);
    rc = up_cache_remove(path, err);
    return rc ? rc
              : up_cache_open(c, path, cfg->cache_ttl_days.value, wait_ms, err);
}

static int run(const struct action *act, up_error *err)
{
    up_config cfg;
    up_cache *c = NULL;
    int rc;

    up_config_init(&cfg);
    rc = up_config_load(&cfg, err);
    for (size_t i = 0; !rc && i < cfg.nwarnings; i++)
        out_warn("%s", cfg.warnings[i]);
    if (!rc && !cfg.cache_path.value)
        rc = up_error_set(err, UP_EPARSE, "no cache.path is configured");
    if (!rc && up_fs_is_file(cfg.cache_path.value))
        rc = open_for(&c, act, &cfg, err);
    if (!rc)
        rc = act->run(c, &cfg, err);
    up_cache_close(c);
    up_config_release(&cfg);
    return rc;
}

/* Check the action and its flags; say what is wrong and return 0. */
static int usage_ok(const struct action *act, const char *name)
{
    if (!act->name)
        out_error("unknown cache action '%s': use stats or clear", name);
    else if (older_than < -1)
        out_error("--older-than takes a number of days (0 or more)");
    else if (older_than != -1 && strcmp(act->name, "clear"))
        out_error("--older-than goes with clear");
    else
        return 1;
    return 0;
}

int cmd_cache(int argc, char **argv)
{
    char **args = NULL;
    const struct action *act = actions;
    up_error err;
    int nargs, rc = opt_parse(&cmd_cache_spec, argc, argv, &args, &nargs);

    if (rc) {
        rc = rc > 0 ? 0 : EXIT_USAGE;
        goto out;
    }
    while (act->name && strcmp(act->name, args[0]))
        act++;
    if (!usage_ok(act, args[0])) {
        rc = EXIT_USAGE;
        goto out;
    }
    rc = run(act, &err);
    if (rc)
        rc = out_fail(&err);
out:
    free(args);
    return rc;
}
