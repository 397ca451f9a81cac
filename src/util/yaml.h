/*
 * A small YAML tree on top of libyaml's event stream, for SKILL.md
 * frontmatter and upskill.config.yaml.
 *
 * Every scalar is kept as text (StrictYAML style); callers convert.  Nodes
 * carry 1-based line numbers in the caller's file.  Constructs that strict
 * readers (skills-ref's StrictYAML) refuse — flow collections, anchors,
 * aliases, tags, duplicate keys, tabs in indentation, several documents —
 * do not stop the parse: they are recorded as issues with their line, so
 * the validator can report each and the config loader can refuse them.
 * Syntax errors do stop it.
 */
#ifndef UPSKILL_YAML_H
#define UPSKILL_YAML_H

#include <stddef.h>

#include "upskill/error.h"

enum up_ykind { UP_Y_SCALAR, UP_Y_SEQ, UP_Y_MAP };

/* How a scalar was written. */
enum up_ystyle {
    UP_YS_PLAIN,
    UP_YS_SQUOTED,
    UP_YS_DQUOTED,
    UP_YS_LITERAL,
    UP_YS_FOLDED
};

typedef struct up_ynode {
    enum up_ykind kind;
    int line;             /* 1-based, in the caller's file */
    int col;              /* 1-based */
    char *value;          /* UP_Y_SCALAR: the text (UTF-8); else NULL */
    enum up_ystyle style; /* UP_Y_SCALAR only */
    int flow;             /* UP_Y_SEQ/UP_Y_MAP written as [] or {} */
    /* UP_Y_MAP: keys[i] -> items[i]; UP_Y_SEQ: items[i] only. */
    struct up_ynode **keys;
    struct up_ynode **items;
    size_t n;
} up_ynode;

typedef struct up_yissue {
    int line;
    char *msg; /* e.g. "flow style mapping is not allowed" */
} up_yissue;

typedef struct up_ydoc {
    up_ynode *root; /* NULL for an empty document */
    up_yissue *issues;
    size_t nissues;
} up_ydoc;

/*
 * Parse len bytes of text; first_line is the file line of text's first
 * line (so frontmatter lines match SKILL.md).  On a syntax error returns
 * UP_EPARSE with "line N: what" in err (no file name; callers prefix it).
 * The doc must be released with up_ydoc_release in every case.
 */
int up_yaml_parse(up_ydoc *doc, const char *text, size_t len, int first_line,
                  up_error *err);
void up_ydoc_release(up_ydoc *doc);

/* The value for key in a mapping node, or NULL. */
const up_ynode *up_yaml_get(const up_ynode *map, const char *key);

/* "a string", "a list" or "a mapping". */
const char *up_yaml_kind_name(const up_ynode *node);

#endif
