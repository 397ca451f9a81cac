#!/usr/bin/python3
"""Every program a test runs comes from scripts/deps.sh, or the test skips.

Reads the end-to-end scripts (tests/e2e/*.sh, the shell libraries they
source, the shell scripts they embed in strings and here-documents after a
"#!" line) and the Python helpers under tests/, and lists each program
they run and each module they import.  A program or module passes when
the Debian package that provides it on this machine is one scripts/deps.sh
installs, a dependency of one, or part of every Debian system (priority
required or important); or when the script that uses it skips without it
("command -v NAME", or a table line below).  Anything else is an error:
a fresh machine that ran only deps.sh would fail that test (issue 31:
t1730 needed python3-pytest).  Run by scripts/lint.sh; its own checks are
tests/e2e/t0020-test-needs.sh.

usage: test_needs.py [--list] [--deps FILE] [FILE...]
"""

import os
import re
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Words in command position that run no program of a package.
SHELL = set("""
! { } [ [[ ]] . : alias bg break cd command continue do done echo elif else
esac eval exec exit export false fi for function getopts hash if in jobs
kill local printf pwd read readonly return set shift source test then
times trap
true type ulimit umask unalias unset until wait while case select
""".split())

# Programs that are the project's own (built by make) or set by the tests.
OWN = {"upskill", "fake-llm", "bench-transport", "test-unit"}

# A module of Python's standard library needs no package of its own.
STDLIB = set(getattr(sys, "stdlib_module_names", ()))

ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
WORD = re.compile(r"^[A-Za-z][A-Za-z0-9_+-]*$")
FUNC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(\)\s*\{?")
IMPORT = re.compile(r"^\s*(?:import|from)\s+([A-Za-z_][A-Za-z0-9_]*)")
# "# test-needs: not NAME... (why)": NAME runs only where the test makes
# it (a task's own script) or is meant to be missing (an install step
# that must fail offline).
NOTE = re.compile(r"#\s*test-needs:\s*not\s+([A-Za-z0-9_.+ -]+?)\s*(?:\(|$)", re.M)
PYC = re.compile(r"python3\s+-c\s+(['\"])(.*?)\1")


def deps_packages(path):
    """The package names scripts/deps.sh installs (its PKGS lines)."""
    text = open(path).read()
    pkgs = set()
    for m in re.finditer(r'PKGS="([^"]*)"', text):
        for w in m.group(1).replace("\\\n", " ").split():
            if not w.startswith("$"):
                pkgs.add(w)
    return pkgs


def closure(pkgs):
    """pkgs, their dependencies (recursively) and the base system."""
    out = set(pkgs)
    q = subprocess.run(
        ["apt-cache", "depends", "--recurse", "--no-recommends",
         "--no-suggests", "--no-conflicts", "--no-breaks", "--no-replaces",
         "--no-enhances", "--installed"] + sorted(pkgs),
        capture_output=True, text=True)
    for line in q.stdout.splitlines():
        line = line.strip()
        if not line.startswith(("Depends:", "PreDepends:")):
            if line and not line.startswith(("|", "<")) and ":" not in line:
                out.add(line)
            continue
        name = line.split(":", 1)[1].strip().strip("<>")
        out.add(name.split(":")[0])
    q = subprocess.run(
        ["dpkg-query", "-W", "-f=${Package} ${Priority} ${Essential}\n"],
        capture_output=True, text=True)
    for line in q.stdout.splitlines():
        f = line.split()
        if len(f) >= 2 and (f[1] in ("required", "important") or
                            f[-1] == "yes"):
            out.add(f[0])
    return out


OWNERS = {}


def variants(path):
    """path, its target, and their /bin <-> /usr/bin twins (merged /usr)."""
    cands = {path, os.path.realpath(path)}
    for p in list(cands):
        for a, b in (("/usr/bin/", "/bin/"), ("/usr/sbin/", "/sbin/"),
                     ("/usr/lib/", "/lib/")):
            if p.startswith(a):
                cands.add(b + p[len(a):])
            elif p.startswith(b):
                cands.add(a + p[len(b):])
    return sorted(cands)


def learn_owners(paths):
    """Ask dpkg once which package installed each of paths."""
    todo = sorted({v for p in paths for v in variants(p)} - set(OWNERS))
    if not todo:
        return
    q = subprocess.run(["dpkg", "-S"] + todo, capture_output=True, text=True)
    for p in todo:
        OWNERS[p] = None
    for line in q.stdout.splitlines():
        pkg, _, p = line.partition(": ")
        if p in OWNERS:
            OWNERS[p] = pkg.split(",")[0].split(":")[0].strip()


def owner(path):
    """The package that installed path, or None."""
    learn_owners([path])
    for v in variants(path):
        if OWNERS.get(v):
            return OWNERS[v]
    return None


def copies(name):
    """Every executable file called name on PATH (and the sbin folders)."""
    out = []
    for d in os.environ.get("PATH", "").split(":") + ["/usr/sbin", "/sbin"]:
        p = os.path.join(d, name)
        if d and os.path.isfile(p) and os.access(p, os.X_OK) and p not in out:
            out.append(p)
    return out


def program_owner(name):
    """(package, path) of the first copy of name that a package owns."""
    found = copies(name)
    for p in found:
        pkg = owner(p)
        if pkg:
            return pkg, p
    return None, found[0] if found else None


def module_owner(name):
    """(package, file) of Debian's python3 module name, or (None, None)."""
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"
    q = subprocess.run(
        [py, "-c", "import %s as m; print(getattr(m, '__file__', '') or '')"
         % name], capture_output=True, text=True)
    f = q.stdout.strip()
    if q.returncode != 0 or not f:
        return None, None
    return owner(f), f


def closing(text, i):
    """The index of the ")" that closes the "$(" at text[i]."""
    depth, q = 0, None
    for j in range(i + 1, len(text)):
        c = text[j]
        if q:
            q = None if c == q else q
        elif c in "'\"":
            q = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if not depth:
                return j
    return len(text)


def unquote(text):
    """text with quoted strings and comments blanked (newlines kept), so
    their words are no commands; a "$(...)" inside double quotes stays."""
    out, q, i = [], None, 0
    while i < len(text):
        c = text[i]
        if q == '"' and text.startswith("$(", i):
            j = closing(text, i)
            out.append("$(" + unquote(text[i + 2:j]) + ")")
            i = j + 1
            continue
        if q:
            if c == "\\" and q == '"':
                out.append("  ")
                i += 2
                continue
            q = None if c == q else q
            out.append(c if c in "\n'\"" else " ")
        elif c == "\\":
            out.append(text[i:i + 2])
            i += 2
            continue
        elif c in "'\"":
            q = c
            out.append(c)
        elif c == "#" and (i == 0 or text[i - 1] in " \t;\n"):
            j = text.find("\n", i)
            j = len(text) if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def commands(line):
    """The words in command position of one shell line."""
    # $((x + 1)) is arithmetic; "a | b)" a case's patterns
    text = re.sub(r"\$\(\([\s(]*[A-Za-z_][A-Za-z0-9_]*", " ", line)
    text = re.sub(r"(^|\bin\s|;;)\s*[^\s()|;]+(\s*\|\s*[^\s()|;]+)*\)",
                  " ", text)
    for part in re.split(r"\|\||&&|[|;&`]|\$\(|\(|\)", text):
        words = part.split()
        while words and (ASSIGN.match(words[0]) or words[0] in
                         ("!", "if", "then", "else", "elif", "do", "while",
                          "until", "exec", "time", "command", "env", "nohup",
                          "timeout", "setsid", "sudo", "{")):
            w = words.pop(0)
            if w == "command" and words and words[0] in ("-v", "-V"):
                words = []
            if w == "timeout" and words:
                words.pop(0)
        if words and not words[0].startswith("-"):
            yield words[0].rstrip(")")


def embedded(text):
    """Each script embedded in text: strings and here-documents that begin
    with "#!" (t1730's test.sh for a task), as (is_python, body)."""
    bodies = [m.group(1) for m in re.finditer(r"'(#![^']*)'", text)]
    for m in re.finditer(r"<<-?\s*'?(\w+)'?[^\n]*\n(.*?)\n\1\n", text, re.S):
        if m.group(2).startswith("#!"):
            bodies.append(m.group(2))
    for b in bodies:
        yield "python" in b.split("\n", 1)[0], b


def heredocs_removed(text):
    return re.sub(r"(<<-?\s*'?(\w+)'?)[^\n]*\n.*?\n\2(\n|$)", r"\1\n",
                  text, flags=re.S)


class Scan:
    def __init__(self):
        self.progs = {}   # name -> set of files using it
        self.mods = {}    # module -> set of files importing it
        self.guard = {}   # file -> words it checks with command -v
        self.funcs = set()

    def shell(self, path, text):
        self.guard.setdefault(path, set()).update(
            re.findall(r"command -v ['\"]?([A-Za-z0-9_.+-]+)", text))
        for m in NOTE.finditer(text):
            self.guard[path].update(m.group(1).split())
        self.lines(path, text)
        for py, body in embedded(text):
            (self.python if py else self.lines)(path, body)
        for m in re.finditer(r"<<-?\s*'?(PY\w*)'?\n(.*?)\n\1\n", text, re.S):
            self.python(path, m.group(2))

    def lines(self, path, text):
        body = unquote(heredocs_removed(text))
        for line in body.replace("\\\n", " ").splitlines():
            m = FUNC.match(line)
            if m:
                self.funcs.add(m.group(1))
            for w in commands(line):
                if WORD.match(w):
                    self.progs.setdefault(w, set()).add(path)
        for m in PYC.finditer(text):
            self.python(path, m.group(2).replace(";", "\n"))

    def python(self, path, text):
        for line in text.splitlines():
            m = IMPORT.match(line)
            if m:
                self.mods.setdefault(m.group(1), set()).add(path)


def inputs(args):
    if args:
        return args
    out = []
    for d in ("tests/e2e", "tests/fake", "tests/clis"):
        for f in sorted(os.listdir(os.path.join(TOP, d))):
            if f.endswith((".sh", ".py")):
                out.append(os.path.join(d, f))
    return out


def main(argv):
    listing = "--list" in argv
    argv = [a for a in argv if a != "--list"]
    deps = os.path.join(TOP, "scripts/deps.sh")
    if "--deps" in argv:
        i = argv.index("--deps")
        deps = argv[i + 1]
        del argv[i:i + 2]
    allowed = closure(deps_packages(deps))
    scan = Scan()
    libs = {"tests/e2e/lib.sh", "tests/fake/lib.sh"}
    for f in inputs(argv):
        text = open(os.path.join(TOP, f) if not os.path.isabs(f) else f).read()
        (scan.python if f.endswith(".py") else scan.shell)(f, text)
    learn_owners([p for n in scan.progs for p in copies(n)])
    lib_guard = set().union(*(scan.guard.get(l, set()) for l in libs))
    bad = 0
    for name in sorted(scan.progs):
        if name in SHELL or name in OWN or name in scan.funcs:
            continue
        pkg, path = program_owner(name)
        ok = pkg in allowed
        for f in sorted(scan.progs[name]):
            guarded = name in scan.guard.get(f, set()) or name in lib_guard
            if listing:
                print("%s\t%s\t%s\t%s" % (name, pkg or "-", f,
                      "ok" if ok else ("skips" if guarded else "MISSING")))
            if not ok and not guarded:
                why = ("from package %s, which scripts/deps.sh does not "
                       "install" % pkg) if pkg else (
                      "found at %s, in no Debian package" % path if path
                      else "not found on this machine")
                print("test-needs: %s runs '%s' (%s) and does not skip "
                      "without it: add its package to scripts/deps.sh or "
                      "skip with 'command -v %s'" % (f, name, why, name),
                      file=sys.stderr)
                bad = 1
    for mod in sorted(scan.mods):
        if mod in STDLIB:
            continue
        pkg, path = module_owner(mod)
        for f in sorted(scan.mods[mod]):
            if listing:
                print("%s\t%s\t%s\t%s" % ("py:" + mod, pkg or "-", f,
                      "ok" if pkg in allowed else "MISSING"))
            if pkg not in allowed:
                print("test-needs: %s imports '%s' (%s): add its package to "
                      "scripts/deps.sh" % (f, mod, "package %s" % pkg if pkg
                      else "not in Debian's python3 here"), file=sys.stderr)
                bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
