/* upskill validate: placeholder until the validator lands. */
#include <stdlib.h>

#include "cli.h"

static const struct opt opts[] = {{0, NULL, OPT_FLAG, NULL, NULL, NULL}};
static const struct cmd_spec spec = {
    "validate", "PATH...", "check skills against the Agent Skills spec",
    NULL,       opts,      1,
    -1};

int cmd_validate(int argc, char **argv)
{
    char **args = NULL;
    int nargs, rc = opt_parse(&spec, argc, argv, &args, &nargs);

    free(args);
    return rc < 0 ? EXIT_USAGE : 0;
}
