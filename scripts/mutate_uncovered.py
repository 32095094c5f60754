#!/usr/bin/env python3
"""Run gremlins' NOT COVERED mutants by hand (make mutate, MUTATE_UNCOVERED=1).

gremlins v0.6.0 marks a mutant "not covered" when its line is missing from
the coverage profile, and that profile leaves out the condition of every
`case` of an expression-less switch (and constants) even when tests run
them. This applies each such mutant, one at a time, to a copy of the tree
and runs the package's tests with the flags in $GOFLAGS:

    KILLED    the tests failed            LIVED     the tests passed
    TIMEDOUT  past the timeout (detected) NOBUILD   the mutant does not compile
                                                    (a string + turned into -)

Usage: scripts/mutate_uncovered.py GREMLINS_LOG PKG_DIR   (from the repository root)
"""
import os, re, shutil, subprocess, sys, tempfile, time

OPS = {
    'CONDITIONALS_NEGATION': {'==': '!=', '!=': '==', '<=': '>', '>=': '<', '<': '>=', '>': '<='},
    'CONDITIONALS_BOUNDARY': {'<=': '<', '>=': '>', '<': '<=', '>': '>='},
    'ARITHMETIC_BASE': {'+': '-', '-': '+', '*': '/', '/': '*', '%': '*'},
    'INCREMENT_DECREMENT': {'++': '--', '--': '++'},
    'INVERT_NEGATIVES': {'-': '+'},
}
PAT = re.compile(r'NOT COVERED (\w+) at (\S+?\.go):(\d+):(\d+)')


def main():
    log, pkg = sys.argv[1], sys.argv[2].strip('./')
    files = subprocess.run(['git', 'ls-files', '-co', '--exclude-standard'],
                           capture_output=True, text=True, check=True).stdout.split()
    tmp = tempfile.mkdtemp(prefix='aipwatch-uncovered-')
    try:
        for f in files:
            if os.path.isfile(f):
                os.makedirs(os.path.join(tmp, os.path.dirname(f)), exist_ok=True)
                shutil.copy2(f, os.path.join(tmp, f))
        for line in open(log):
            m = PAT.search(line)
            if m:
                run_one(tmp, pkg, m.group(1), m.group(2), int(m.group(3)), int(m.group(4)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_one(tmp, pkg, kind, f, ln, col):
    path = os.path.join(tmp, pkg, os.path.basename(f))
    orig = open(path).read()
    lines = orig.split('\n')
    l, i = lines[ln - 1], col - 1
    rep = next(((o, n) for o, n in sorted(OPS.get(kind, {}).items(), key=lambda x: -len(x[0]))
                if l[i:i + len(o)] == o), None)
    where = f'{kind} {pkg}/{os.path.basename(f)}:{ln}:{col}'
    if rep is None:
        print(f'SKIPPED {where}: no operator at the position: {l.strip()[:80]}', flush=True)
        return
    lines[ln - 1] = l[:i] + rep[1] + l[i + len(rep[0]):]
    open(path, 'w').write('\n'.join(lines))
    t0 = time.time()
    try:
        r = subprocess.run(['go', 'test', '-failfast', '-timeout', '300s', './' + pkg],
                           cwd=tmp, capture_output=True, text=True, timeout=330)
        out = r.stdout + r.stderr
        st = 'LIVED' if r.returncode == 0 else ('NOBUILD' if 'build failed' in out or 'setup failed' in out else 'KILLED')
    except subprocess.TimeoutExpired:
        st = 'TIMEDOUT'
    finally:
        open(path, 'w').write(orig)
    print(f'{st} {where} {rep[0]}->{rep[1]} ({time.time() - t0:.0f}s): {l.strip()[:90]}', flush=True)


if __name__ == '__main__':
    main()
