#!/usr/bin/env python3
"""Counts N-Queens on a Ray cluster: `forkboard queens N --shard K/M` as one Ray task per shard.

Forkboard stays the engine; Ray only places the shards on the cluster's machines (one GPU each where the
cluster has GPUs, CPU cores where not) and retries a shard whose worker dies. Finished shards are appended to a
checkpoint file (one JSON line each), so a rerun after a crash counts only what is missing. The totals are
printed beside the published counts.

    cluster/setup.sh                                # a virtual environment with Ray, once
    cluster/.venv/bin/python cluster/ray_queens.py 16 --shards 8               # a local Ray on this machine
    cluster/.venv/bin/python cluster/ray_queens.py 22 --shards 64 --address auto   # an existing cluster
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import ray

HERE = os.path.dirname(os.path.abspath(__file__))

# Published counts (total, unique), OEIS A000170 and A002562.
KNOWN = {
    1: (1, 1), 2: (0, 0), 3: (0, 0), 4: (2, 1), 5: (10, 2), 6: (4, 1), 7: (40, 6), 8: (92, 12),
    9: (352, 46), 10: (724, 92), 11: (2680, 341), 12: (14200, 1787), 13: (73712, 9233),
    14: (365596, 45752), 15: (2279184, 285053), 16: (14772512, 1846955), 17: (95815104, 11977939),
    18: (666090624, 83263591), 19: (4968057848, 621012754), 20: (39029188884, 4878666808),
    21: (314666222712, 39333324973), 22: (2691008701644, 336376244042),
    23: (24233937684440, 3029242658210), 24: (227514171973736, 28439272956934),
    25: (2207893435808352, 275986683743434), 26: (22317699616364044, 2789712466510289),
    27: (234907967154122528, 29363495934315694),
}


def default_binary():
    """The release build beside this folder, else `forkboard` on the PATH."""
    built = os.path.join(HERE, "..", "target", "release", "forkboard")
    return os.path.abspath(built) if os.path.exists(built) else shutil.which("forkboard")


def run_shard(binary, n, index, shards, engine):
    """Counts one shard with the forkboard binary; returns its JSON line as a dict."""
    command = [binary, "queens", str(n), "--shard", f"{index}/{shards}", "--engine", engine]
    gpus = ray.get_gpu_ids() if ray.is_initialized() else []
    if engine == "gpu" and gpus:
        # Ray hands this task one GPU; forkboard numbers a host's GPUs the same way (Vulkan's order).
        command += ["--gpus", ",".join(str(int(g)) for g in gpus)]
    if os.environ.get("FORKBOARD_RAY_DIE_ONCE"):
        # Fault injection for the tests: the first attempt of the named shard kills its worker process.
        marker = os.environ["FORKBOARD_RAY_DIE_ONCE"] + f".{n}.{index}"
        if f"{index}/{shards}" == os.environ.get("FORKBOARD_RAY_DIE_SHARD") and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            result = json.loads(line)
            result["host"] = os.uname().nodename
            return result
    raise RuntimeError(f"{' '.join(command)} printed no JSON line:\n{done.stdout}")


def read_checkpoint(path, n, shards):
    """Shards of this N and shard count already finished: {index: result}."""
    finished = {}
    if not path or not os.path.exists(path):
        return finished
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                result = json.loads(line)
                index, of = (int(x) for x in result["shard"].split("/"))
            except (ValueError, KeyError) as e:
                # A line cut short by a crash is counted again, not trusted.
                print(f"checkpoint {path}:{number}: skipping an unreadable line ({e})", file=sys.stderr)
                continue
            if result.get("n") == n and of == shards:
                finished[index] = result
    return finished


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("n", type=int, help="board size, 1 to 32")
    parser.add_argument("--shards", type=int, default=64, help="shards (Ray tasks); default 64")
    parser.add_argument("--address", help="an existing Ray cluster (`auto`, or host:port); default: a local one")
    parser.add_argument("--binary", default=default_binary(), help="the forkboard binary on every node")
    parser.add_argument("--engine", choices=["auto", "gpu", "cpu"], help="default: gpu where the cluster has GPUs")
    parser.add_argument("--checkpoint", help="JSON lines of finished shards; a rerun skips them")
    parser.add_argument("--retries", type=int, default=3, help="retries of a shard whose worker dies")
    parser.add_argument("--cpus-per-task", type=float, default=1.0, help="CPU shards' cores each")
    args = parser.parse_args()
    if not 1 <= args.n <= 32:
        parser.error(f"N must be between 1 and 32, not {args.n}")
    if args.shards < 1:
        parser.error("--shards must be at least 1")
    if not args.binary or not os.path.exists(args.binary):
        parser.error("no forkboard binary: build it (cargo build --release) or give --binary")

    ray.init(address=args.address, include_dashboard=False, logging_level="ERROR",
             runtime_env={"env_vars": {k: v for k, v in os.environ.items() if k.startswith("FORKBOARD_RAY_")}})
    gpus = ray.cluster_resources().get("GPU", 0)
    engine = args.engine or ("gpu" if gpus else "cpu")
    resources = {"num_gpus": 1} if engine == "gpu" and gpus else {"num_cpus": args.cpus_per_task}
    task = ray.remote(max_retries=args.retries, retry_exceptions=False, **resources)(run_shard)

    finished = read_checkpoint(args.checkpoint, args.n, args.shards)
    if args.checkpoint and os.path.exists(args.checkpoint) and os.path.getsize(args.checkpoint):
        with open(args.checkpoint, "rb+") as f:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                # A line cut short by a crash: new lines start after it, not inside it.
                f.write(b"\n")
    missing = [k for k in range(1, args.shards + 1) if k not in finished]
    print(f"N={args.n}: {args.shards} shards, {len(finished)} already in the checkpoint, "
          f"{len(missing)} to count on {engine} ({gpus:g} GPUs in the cluster)", file=sys.stderr)
    started = time.time()
    pending = {task.remote(args.binary, args.n, k, args.shards, engine): k for k in missing}
    failed = []
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        index = pending.pop(ready[0])
        try:
            result = ray.get(ready[0])
        except Exception as e:  # a shard out of retries: the others go on, the rerun retries it
            failed.append(index)
            print(f"shard {index}/{args.shards} failed: {e}", file=sys.stderr)
            continue
        finished[index] = result
        if args.checkpoint:
            with open(args.checkpoint, "a") as f:
                f.write(json.dumps(result) + "\n")
                f.flush()
                os.fsync(f.fileno())
        done = len(finished)
        print(f"[{done}/{args.shards}] shard {index}/{args.shards}: total {result['total']}, "
              f"{result['seconds']:.2f} s on {result['host']}", file=sys.stderr)

    seconds = time.time() - started
    if failed:
        print(f"{len(failed)} shards failed ({', '.join(map(str, sorted(failed)))}); rerun with the same "
              f"--checkpoint to count only those", file=sys.stderr)
        return 2
    total = sum(r["total"] for r in finished.values())
    unique = sum(r["unique"] for r in finished.values())
    known = KNOWN.get(args.n)
    verdict = "-" if known is None else ("matches" if known == (total, unique) else
                                         f"DIFFERS (published {known[0]} / {known[1]})")
    print(f"{'N':>2}  {'total':>20}  {'unique':>19}  {'seconds':>10}  published")
    print(f"{args.n:>2}  {total:>20}  {unique:>19}  {seconds:>10.3f}  {verdict}")
    return 0 if known is None or known == (total, unique) else 1


if __name__ == "__main__":
    sys.exit(main())
