"""``jobs.worker_pool``: a long job's process pool does not outlive the job (a kill, even ``kill -9``, takes the
workers with it) and runs the caller's initializer."""
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cardboard.jobs.worker_pool import process_pool

JOB = """
import multiprocessing, os, sys, time
from cardboard.jobs.worker_pool import process_pool
if __name__ == "__main__":
    pool = process_pool(2, context=multiprocessing.get_context(sys.argv[1]))
    pids = {f.result() for f in [pool.submit(time.sleep, 0.2) for _ in range(4)] and
            [pool.submit(os.getpid) for _ in range(8)]}
    print(" ".join(map(str, sorted(pids))), flush=True)
    time.sleep(60)
"""


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting to be reaped counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone between the open and the read: ESRCH
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("method", ["spawn", "fork", "forkserver"])
def test_the_workers_exit_when_the_job_is_killed(method):
    job = subprocess.Popen([sys.executable, "-c", JOB, method], stdout=subprocess.PIPE, text=True)
    try:
        workers = [int(pid) for pid in job.stdout.readline().split()]
        assert workers and all(map(running, workers))
    finally:
        job.send_signal(signal.SIGKILL)
        job.wait()
    deadline = time.monotonic() + 20
    while any(map(running, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(running, workers))


def remember(value: str) -> None:
    os.environ["CARDBOARD_TEST_WORKER"] = value


def read() -> str:
    return os.environ["CARDBOARD_TEST_WORKER"]


def test_the_initializer_runs_in_every_worker_with_its_arguments():
    with process_pool(2, context=multiprocessing.get_context("spawn"), initializer=remember,
                      initargs=("set",)) as pool:
        assert [f.result() for f in [pool.submit(read) for _ in range(4)]] == ["set"] * 4
