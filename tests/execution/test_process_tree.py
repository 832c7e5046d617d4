"""The processes a sandbox's kill and a run's watcher find under a root
(codeteam.execution.sandbox_command.descendants), and the same found by one pass over /proc,
which ``descendants`` falls back to on a kernel without ``/proc/<pid>/task/<tid>/children``
(no CONFIG_PROC_CHILDREN): both name the root and every process below it, nothing else."""

from __future__ import annotations

import subprocess

from codeteam.execution.sandbox_command import _scanned_descendants, descendants, kill_tree


def test_both_ways_find_the_root_its_child_and_its_grandchild():
    shell = subprocess.Popen(["sh", "-c", "sleep 60 & echo $!; wait"], stdout=subprocess.PIPE,
                             text=True)
    try:
        grandchild = int(shell.stdout.readline())  # the shell's child is running
        tree = sorted([shell.pid, grandchild])
        assert sorted(descendants([shell.pid])) == tree
        assert sorted(_scanned_descendants([shell.pid])) == tree
    finally:
        kill_tree(shell.pid)
        shell.wait()
        shell.stdout.close()
    assert _scanned_descendants([shell.pid]) == []  # reaped: no longer alive
