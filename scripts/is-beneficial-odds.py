#!/usr/bin/env python3
"""How often upstream's is_beneficial calls a useless skill beneficial.

docs/statistics.md quotes these figures.  A useless skill: one run per
case, both arms pass each case independently at the same rate p, and
spend the same tokens (token_savings 0), so is_beneficial reduces to
lift > 0.05, with lift = S/n - B/n computed in IEEE doubles as
src/lib/cases/stats.c does (S, B: the two arms' passes, independent
Binomial(n, p)).  The probability is summed exactly, in fractions, over
every (S, B); only the comparison is in doubles, as in the code.

    python3 scripts/is-beneficial-odds.py
"""
from fractions import Fraction
from math import comb


def p_beneficial(n, p):
    """Exact P(is_beneficial) over n cases at pass rate p."""
    pmf = [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    return sum(pmf[s] * pmf[b] for s in range(n + 1) for b in range(n + 1)
               if s / n - b / n > 0.05)


def main():
    for p in (Fraction(1, 2), Fraction(1, 5), Fraction(1, 10)):
        got = {n: float(p_beneficial(n, p)) for n in range(5, 31)}
        lo, hi = min(got, key=got.get), max(got, key=got.get)
        print(f"p = {float(p)}: {got[lo]:.1%} (n = {lo}) to "
              f"{got[hi]:.1%} (n = {hi}) over 5-30 cases")


if __name__ == "__main__":
    main()
