#!/bin/sh
# The arrows between the parts of src/lib (docs/architecture.md): one line
# "FROM -> TO (HEADER)" per header of another part that a part includes.
# part of each public header: the folder of src/lib implementing it
owner() {
    for f in src/lib/*/"$1".c src/lib/*/"$1"_*.c; do
        [ -e "$f" ] && { echo "$f" | cut -d/ -f3; return; }
    done
    echo "-"
}
for d in src/lib/*/; do
    p=$(basename $d)
    for h in $(cat $d*.[ch] | sed -n 's|^#include "upskill/\([a-z0-9_]*\)\.h".*|\1|p' | sort -u); do
        o=$(owner $h); [ "$o" != "-" ] && [ "$o" != "$p" ] && echo "$p -> $o ($h)"
    done
    for h in $(cat $d*.[ch] | sed -n 's|^#include "lib/\([a-z]*\)/.*|\1|p' | sort -u); do
        [ "$h" != "$p" ] && echo "$p -> $h (internal)"
    done
done | sort
