"""What every command run from a shell shares: its name, its argument errors, a closed pipe.

The preview commands (``context-providers preview``, each provider script run
without the kernel) are Unix filters: they write to stdout and are piped into
``head`` and ``less``. So a reader that goes away ends them the way it ends
``cat`` (killed by SIGPIPE, no traceback), Ctrl-C ends them with 130 and one
line, and a bad argument is reported like
every other bad input, naming the spec's error category, exit 2 (as is a
classified failure no command caught: a scratch copy git could not make). Never used
on the plugin path: there stdout belongs to the go-plugin handshake.
"""

from __future__ import annotations

import argparse
import os
import select
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from providers.core.errors import ProviderError, invalid_request

EXIT_ERROR = 2
"""Bad input, as argparse and the standalone commands have always exited."""
EXIT_INTERRUPTED = 130
"""Ctrl-C, as a shell reports a command ended by SIGINT (128 + 2)."""


def command_name(script: str, module: str) -> str:
    """How the user started us, for usage lines: ``context-git-status`` when run as the
    console script, ``python -m providers.git_status`` otherwise (argv[0] is then the
    module's file, which would make a useless ``__main__.py`` in the usage line)."""
    return script if Path(sys.argv[0]).name == script else f"python -m {module}"


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose errors name the category, as every other bad input does."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"error: {invalid_request(message)}\n")


def run_command(main: Callable[[], int]) -> int:
    """``main()``'s exit code, with stdout flushed; a reader gone away ends us quietly.

    The flush happens here, not at interpreter exit, because a short answer
    sits in stdout's buffer until then, and a failed flush at exit prints
    "Exception ignored" and exits 120. A ``BrokenPipeError`` whose pipe is not
    stdout is a bug and is raised as one.
    """
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        if not _stdout_reader_gone():
            raise
        _die_of_sigpipe()
    except ProviderError as error:
        # Classified (a scratch copy that could not be made): one line, no traceback.
        sys.stderr.write(f"error: {error}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        # Ctrl-C: context managers have unwound (plugins stopped, scratch copies gone);
        # a shell expects 130 and no traceback.
        sys.stderr.write("interrupted\n")
        return EXIT_INTERRUPTED
    return code


def _stdout_reader_gone() -> bool:
    """Whether stdout is a pipe (or socket) nobody reads any more: poll says POLLERR."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        events = poller.poll(0)
    except (OSError, ValueError):
        return False
    return any(mask & (select.POLLERR | select.POLLHUP) for _, mask in events)


def _die_of_sigpipe() -> NoReturn:
    """End as ``cat`` does when its reader has gone: killed by SIGPIPE (status 141 in a
    shell), which Python ignores by default. Whatever is left in stdout's buffer goes to
    /dev/null, so nothing is retried at exit; context managers have already unwound
    (plugin processes stopped, scratch copies removed) on the way here."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGPIPE)
    os._exit(128 + signal.SIGPIPE)  # not reached: the signal's default action ends us
