#!/usr/bin/env python3
"""Recompute, independently of upskill, the family control of a batch.

Reads the --json document of an eval over several models, a sweep (eval
SKILL...) or a compare, and from each measured comparison's two-sided
p-value alone recomputes what docs/statistics.md ("Many comparisons at
once") says upskill does: Benjamini-Hochberg (fdr) or Holm adjusted
p-values, the number of claims R, the family's level (R q / m for fdr,
q / (m - R + 1) for Holm, q / m when R = 0), which lifts are claimed
(adjusted p < q), and that a claimed lift's interval excludes 0 while an
unclaimed one's holds it.  Prints one line per comparison and "ok" or
the first disagreement; exit 0 when upskill agrees on everything.

Python standard library only.  Usage: family_check.py FILE.json
"""
import json
import sys

CLAIMS = ("beneficial", "harmful")


def comparisons(doc):
    """The measured comparisons of the document, in order."""
    if "leaderboard" in doc:
        cells = [c for row in doc["leaderboard"]["rows"] for c in row["cells"]]
    else:
        cells = doc["models"]
    return [c for c in cells if c.get("p_value") is not None]


def bh(ps):
    m = len(ps)
    order = sorted(range(m), key=lambda i: (ps[i], i))
    adj = [0.0] * m
    run = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        run = min(run, min(1.0, m * ps[i] / rank))
        adj[i] = run
    return adj


def holm(ps):
    m = len(ps)
    order = sorted(range(m), key=lambda i: (ps[i], i))
    adj = [0.0] * m
    run = 0.0
    for rank in range(1, m + 1):
        i = order[rank - 1]
        run = max(run, min(1.0, (m - rank + 1) * ps[i]))
        adj[i] = run
    return adj


def level(control, r, m, q):
    if control == "none":
        return q
    if control == "holm":
        return q / (m - r + 1) if r else q / m
    return r * q / m if r else q / m


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def main(path):
    with open(path) as f:
        doc = json.load(f)
    fam = doc["leaderboard"]["family"] if "leaderboard" in doc else doc["family"]
    control, q = fam["control"], fam["rate"]
    cs = comparisons(doc)
    m = len(cs)
    ps = [c["p_value"] for c in cs]
    adj = {"fdr": bh, "holm": holm}.get(control, lambda p: list(p))(ps)
    r = sum(a < q for a in adj)
    bad = []
    if fam["comparisons"] != m:
        bad.append("family holds %d comparisons, the cells %d" %
                   (fam["comparisons"], m))
    if fam["claimed"] != r:
        bad.append("claimed %d, recomputed %d" % (fam["claimed"], r))
    if not close(fam["level"], level(control, r, m, q)):
        bad.append("level %r, recomputed %r" %
                   (fam["level"], level(control, r, m, q)))
    for i, c in enumerate(cs):
        claimed = adj[i] < q
        said = c["verdict"] in CLAIMS
        lo, hi = c["lift_ci"]
        excludes = lo > 0 or hi < 0
        print("%2d p %.4g adjusted %.4g (upskill %.4g) %s, CI [%.3f, %.3f]" %
              (i, ps[i], adj[i], c["p_adjusted"], c["verdict"], lo, hi))
        if not close(adj[i], c["p_adjusted"]):
            bad.append("comparison %d: adjusted p %r, upskill %r" %
                       (i, adj[i], c["p_adjusted"]))
        if claimed != said:
            bad.append("comparison %d: claimed %s, upskill says %s" %
                       (i, claimed, c["verdict"]))
        if claimed != excludes:
            bad.append("comparison %d: claimed %s but CI [%r, %r]" %
                       (i, claimed, lo, hi))
    if bad:
        print("DISAGREE: " + "; ".join(bad))
        return 1
    print("ok: %d comparisons, %d claimed, %s at %g" % (m, r, control, q))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
