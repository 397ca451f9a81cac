/*
 * libFuzzer target for the tool layer: the first byte picks a tool (one
 * past the table is an unknown name), the rest is the model's argument
 * text.  Property: whatever the call, nothing appears beside the
 * workspace in its private parent folder (abort otherwise).  The
 * workspace is replaced every 256 inputs to keep it small.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/agent/workspace.h"
#include "upskill/upskill.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char parent[] = "/tmp/upskill-fuzz-tools-XXXXXX";
static up_workspace *ws;
static unsigned runs;

static size_t entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;

    if (!d)
        abort();
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static void fresh(void)
{
    up_ws_limits lim;

    if (!ws && !mkdtemp(parent))
        abort();
    up_workspace_free(ws);
    ws = NULL;
    up_ws_limits_default(&lim);
    lim.max_total = 1u << 20;
    if (up_workspace_new(&ws, parent, &lim, NULL) ||
        up_workspace_add_file(ws, "a/b.txt", "hello", 5, 0, NULL))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n;
    const up_tool *t = up_tool_table(&n);
    up_buf out = UP_BUF_INIT;
    const char *name;

    if (!size)
        return 0;
    if (!ws || ++runs % 256 == 0)
        fresh();
    name = data[0] % (n + 1) < n ? t[data[0] % (n + 1)].name : "nope";
    if (up_tool_find(name) && (up_tool_find(name)->flags & UP_TOOL_SLOW))
        name = "nope"; /* "run" runs commands: not a fuzz target */
    up_tool_invoke(ws, name, (const char *)data + 1, size - 1, &out);
    if (entries(parent) != 1)
        abort(); /* a file escaped the workspace */
    up_buf_release(&out);
    return 0;
}
