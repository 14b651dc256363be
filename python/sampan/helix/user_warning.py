"""Warnings about the user's data (rows left out, columns ignored) that point at the user's code.

warnings.warn prints the source line of the frame it names; with a fixed stacklevel that is a
line of sampan's own source whenever the call came through another sampan function. warn() names
the first frame outside the sampan package instead, so the line printed is the caller's. The CLI
records these warnings and prints each message as one line, with no source line at all.
"""
import os
import sys
import warnings

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _first_outside_frame_level():
    level, frame = 1, sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR + os.sep):
        frame = frame.f_back
        level += 1
    return level


def warn(message, category=UserWarning):
    """warnings.warn(message) attributed to the first caller outside sampan."""
    warnings.warn(message, category, stacklevel=_first_outside_frame_level())
