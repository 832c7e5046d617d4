"""Stubs to try codeteam on: a signature and a docstring, no body yet.

    codeteam run examples/stubs.py --function add_numbers --pipeline team
"""


def add_numbers(a: int, b: int) -> int:
    """Return the sum of a and b.

    >>> add_numbers(2, 3)
    5
    >>> add_numbers(-1, 1)
    0
    """


def running_max(xs: list[int]) -> list[int]:
    """Return a list whose i-th element is the largest of xs[0..i].

    >>> running_max([1, 3, 2, 5])
    [1, 3, 3, 5]
    >>> running_max([])
    []
    """
