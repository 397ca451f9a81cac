/*
 * upskill's stand-in for the pytest-json-ctrf plugin (check.h): SkillsBench
 * verifiers install that plugin from the network and run `pytest --ctrf
 * FILE`; offline, Debian's pytest would refuse the option.  This plugin,
 * written beside a verifier's hidden files and loaded through
 * PYTEST_PLUGINS, accepts `--ctrf FILE` and writes there the CTRF JSON
 * report's results: tool, summary (tests, passed, failed, skipped,
 * pending, other, start, stop, in ms) and one entry per test (name,
 * status, duration).  A test whose setup or teardown fails counts as
 * failed, as the original counts it; an xfail counts as skipped.  When
 * another plugin already defines --ctrf, this one stands aside.  The
 * report is written to a new file beside FILE, then renamed onto it: a
 * symlink the student left at FILE is replaced, never followed, and a
 * folder there fails the run (no report: the reward test.sh computes
 * from it cannot be planted that way).
 */
#include "lib/sandbox/check.h"

static const char plugin[] =
    "# upskill's stand-in for pytest-json-ctrf (docs/harbor.md)\n"
    "import json\n"
    "import os\n"
    "import tempfile\n"
    "import time\n"
    "\n"
    "_ours = False\n"
    "_tests = {}\n"
    "_start = [0]\n"
    "\n"
    "\n"
    "def pytest_addoption(parser):\n"
    "    global _ours\n"
    "    try:\n"
    "        parser.getgroup('ctrf').addoption(\n"
    "            '--ctrf', action='store', dest='upskill_ctrf', default=None,\n"
    "            metavar='FILE', help='write a CTRF JSON report to FILE')\n"
    "        _ours = True\n"
    "    except ValueError:  # the real plugin is here\n"
    "        pass\n"
    "\n"
    "\n"
    "def pytest_sessionstart(session):\n"
    "    _start[0] = int(time.time() * 1000)\n"
    "\n"
    "\n"
    "def pytest_runtest_logreport(report):\n"
    "    t = _tests.setdefault(report.nodeid, ['passed', 0.0])\n"
    "    t[1] += report.duration\n"
    "    if t[0] != 'passed':\n"
    "        return\n"
    "    if report.failed:\n"
    "        t[0] = 'failed'\n"
    "    elif report.skipped:\n"
    "        t[0] = 'skipped'\n"
    "\n"
    "\n"
    "def pytest_sessionfinish(session):\n"
    "    path = _ours and session.config.getoption('upskill_ctrf')\n"
    "    if not path:\n"
    "        return\n"
    "    st = [v[0] for v in _tests.values()]\n"
    "    summary = {'tests': len(st), 'passed': st.count('passed'),\n"
    "               'failed': st.count('failed'),\n"
    "               'skipped': st.count('skipped'), 'pending': 0,\n"
    "               'other': 0, 'start': _start[0],\n"
    "               'stop': int(time.time() * 1000)}\n"
    "    tests = [{'name': k, 'status': v[0],\n"
    "              'duration': int(v[1] * 1000)} for k, v in _tests.items()]\n"
    "    fd, tmp = tempfile.mkstemp(\n"
    "        prefix='.ctrf-', dir=os.path.dirname(os.path.abspath(path)))\n"
    "    try:\n"
    "        with os.fdopen(fd, 'w') as f:\n"
    "            json.dump({'results': {'tool': {'name': 'pytest'},\n"
    "                                   'summary': summary,\n"
    "                                   'tests': tests}}, f)\n"
    "        os.chmod(tmp, 0o644)\n"
    "        os.replace(tmp, path)\n"
    "    except BaseException:\n"
    "        os.unlink(tmp)\n"
    "        raise\n";

const char *up_check_ctrf_plugin(void)
{
    return plugin;
}

/* The sitecustomize.py beside the plugin (first on a verifier's
 * PYTHONPATH, so every python3 of the verifier imports it, and never a
 * student's): the student's folders an offline test.sh put on
 * PYTHONPATH (moved into UPSKILL_PYTHONPATH_LATE, harbor_offline.c)
 * join sys.path after the system's folders; then the system's own
 * sitecustomize runs, when there is one. */
static const char site[] =
    "# upskill's (docs/harbor.md): the student's folders come last\n"
    "import os\n"
    "import sys\n"
    "\n"
    "for _p in os.environ.get('UPSKILL_PYTHONPATH_LATE', '').split(':'):\n"
    "    if _p and _p not in sys.path:\n"
    "        sys.path.append(_p)\n"
    "_own = os.path.join(os.path.dirname(os.__file__), 'sitecustomize.py')\n"
    "if os.path.isfile(_own):\n"
    "    with open(_own) as _f:\n"
    "        exec(compile(_f.read(), _own, 'exec'),\n"
    "             {'__name__': 'sitecustomize'})\n";

const char *up_check_sitecustomize(void)
{
    return site;
}
