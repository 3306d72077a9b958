"""Differential fuzzing: many random programs, minijax against JAX on every leg.

    python bench/fuzz.py --n 2000 --seed 0 [--jobs 1] [--include-known]
    python bench/fuzz.py --only SEED [--include-known]

Each program comes from ``test/unit/random_programs.py`` (the generator the unit tests use):
eager, jit, the StableHLO reference interpreter, grad and vmap are compared with JAX. Seeds
run in batches in child processes, so a crash (segfault, abort) costs one program, recorded
as a crash, and the run goes on. The summary counts failures by class and shows, per class,
the smallest failing program and the command that re-runs it alone (``--only SEED``).
By default the generator avoids what ``KNOWN_BUGS`` lists (deliberate departures from JAX);
``--include-known`` lets it hit them too.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test',
                                'unit'))

#: A child that prints nothing for this long is stuck: its current program counts as a hang.
SILENCE_LIMIT = 300


def worker(seeds, include_known):
    """Check ``seeds`` in this process, one JSON line per program, flushed as each ends."""
    import random_programs as rp
    avoid = frozenset() if include_known else frozenset(rp.KNOWN_BUGS)
    for seed in seeds:
        failures = [f._asdict() for f in rp.check(seed, avoid)]
        print(json.dumps({'seed': seed, 'failures': failures}), flush=True)


def run_batch(seeds, include_known):
    """Results for ``seeds`` from child processes; a child that dies or hangs charges its
    current seed with a crash and a new child takes the rest."""
    results, todo = [], list(seeds)
    while todo:
        cmd = [sys.executable, os.path.abspath(__file__), '--worker',
               *map(str, todo)] + (['--include-known'] if include_known else [])
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        done = _read_results(child, results)
        todo = todo[len(done):]
        if todo:  # the child died (or hung) on todo[0]
            results.append({'seed': todo[0], 'failures': [{
                'seed': todo[0], 'leg': 'process', 'kind': _death(child),
                'message': child.stderr.read()[-600:] if child.stderr else ''}]})
            todo = todo[1:]
    return results


def _read_results(child, results):
    done = []
    deadline = [time.monotonic() + SILENCE_LIMIT]

    def watchdog():
        while child.poll() is None:
            if time.monotonic() > deadline[0]:
                child.kill()
            time.sleep(1)

    threading.Thread(target=watchdog, daemon=True).start()
    for line in child.stdout:
        deadline[0] = time.monotonic() + SILENCE_LIMIT
        if line.startswith('{'):
            result = json.loads(line)
            results.append(result)
            done.append(result['seed'])
    child.wait()
    return done


def _death(child):
    code = child.returncode
    if code == -9:
        return 'hang (killed)'
    return f'crash (signal {-code})' if code < 0 else f'crash (exit {code})'


def _size(program):
    """Steps, counting those of sub-programs: the smaller, the better a reproducer."""
    import random_programs as rp
    return sum(1 for _ in rp._all_steps(program))


def summarize(results, include_known, elapsed):
    import random_programs as rp
    avoid = frozenset() if include_known else frozenset(rp.KNOWN_BUGS)
    by_class = collections.defaultdict(list)
    for r in results:
        for f in r['failures']:
            by_class[f"{f['leg']}: {f['kind']}"].append(f)
    failing = sum(1 for r in results if r['failures'])
    crashes = sum(len(v) for k, v in by_class.items() if k.startswith('process'))
    print(f'\n{len(results)} programs in {elapsed:.0f} s: {failing} with failures, '
          f'{crashes} crashes; {len(by_class)} failure classes'
          + ('' if include_known else f' (avoiding known bugs: {", ".join(sorted(avoid))})'))
    for cls, failures in sorted(by_class.items(), key=lambda kv: -len(kv[1])):
        smallest = min(failures, key=lambda f: _size(rp.generate(f['seed'], avoid).program))
        seeds = sorted({f['seed'] for f in failures})
        print(f'\n=== {len(failures)} x {cls}   (seeds {seeds[:12]})')
        print(f'smallest: python bench/fuzz.py --only {smallest["seed"]}'
              + (' --include-known' if include_known else ''))
        print(rp.describe(rp.generate(smallest['seed'], avoid).program))
        print(smallest['message'][:800])


def only(seed, include_known):
    """Re-run one program here (not in a child), printing its description and failures."""
    import random_programs as rp
    avoid = frozenset() if include_known else frozenset(rp.KNOWN_BUGS)
    d = rp.generate(seed, avoid)
    print(rp.describe(d.program))
    print('hazards:', sorted(d.hazards))
    failures = rp.check(seed, avoid)
    for f in failures:
        print(f'\n{f.leg}: {f.kind}\n{f.message}')
    print('\nOK' if not failures else f'\n{len(failures)} failures')
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--n', type=int, default=200, help='programs to run')
    parser.add_argument('--seed', type=int, default=0, help='the first seed')
    parser.add_argument('--jobs', type=int, default=1, help='child processes at a time')
    parser.add_argument('--batch', type=int, default=100, help='programs per child')
    parser.add_argument('--only', type=int, help='re-run the program of this seed alone')
    parser.add_argument('--include-known', action='store_true',
                        help='let the generator hit the KNOWN_BUGS classes too')
    parser.add_argument('--worker', nargs='+', type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker, args.include_known)
    if args.only is not None:
        return only(args.only, args.include_known)
    seeds = list(range(args.seed, args.seed + args.n))
    batches = [seeds[i:i + args.batch] for i in range(0, len(seeds), args.batch)]
    start, results = time.monotonic(), []
    with ThreadPoolExecutor(args.jobs) as pool:
        for k, batch in enumerate(pool.map(lambda b: run_batch(b, args.include_known),
                                           batches)):
            results.extend(batch)
            failing = [r['seed'] for r in batch if r['failures']]
            print(f'batch {k + 1}/{len(batches)}: {len(failing)} failing'
                  + (f' (seeds {", ".join(map(str, failing))})' if failing else ''),
                  file=sys.stderr, flush=True)
    summarize(results, args.include_known, time.monotonic() - start)
    return 0


if __name__ == '__main__':
    sys.exit(main())
