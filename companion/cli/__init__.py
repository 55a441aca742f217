"""The ``clank-companion`` command: ``main`` runs one command and turns what stops it
(a refusal, Ctrl-C, a closed pipe, a full disk) into one line and an exit status.

The commands are in the modules beside this one: ``games`` (replay, resume, games,
abandon, demo, results, report), ``audit``, ``tags`` (scan and the tag registry) and
``app`` (the touchscreen, the phones' page, backups); ``args`` is the parser and the
checks of the arguments, ``files`` what the commands share."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

from companion.cli.args import (
    build_parser,
    check_arguments,
    choose_language,
    unicode_problem,
    with_default_db,
)
from companion.cli.files import CommandError, default_db
from companion.config import ConfigError
from companion.i18n import N_, _, localized
from companion.kinds import editions, kind_of
from companion.script import shown_path
from companion.store import StoreError

__all__ = ["CommandError", "build_parser", "default_db", "main"]


def _file_errors() -> tuple[type[Exception], ...]:
    """What the boxes' own files raise when they cannot be used, every kind's."""
    return tuple(e for edition in editions() for e in kind_of(edition).file_errors)


class OutputError(Exception):
    """Standard output cannot be written (a full disk, a device error)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


class _Output:
    """Standard output for the length of a command: a write that fails with an OSError
    other than a closed pipe is an OutputError, told apart from a file's error."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> Any:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputError(e) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputError(e) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _silence(stream: Any) -> None:
    """Send what is left of the process's standard output nowhere (os.devnull), so that
    the interpreter's last flush at exit does not fail again on a closed pipe or a full
    disk. Only the real standard output: a stream a caller put there is left as it is."""
    out = sys.__stdout__
    if out is None or stream is not out:
        return
    with contextlib.suppress(OSError, ValueError, AttributeError):
        fd = out.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)  # never created: opened if it is there
        try:
            os.dup2(devnull, fd)
        finally:
            os.close(devnull)


def main(argv: list[str] | None = None) -> int:
    stdout = sys.stdout
    sys.stdout = _Output(stdout)
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C: what was committed stays, nothing else is said
        sys.stdout = stdout
        print(_("interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (| head): not an error of ours
        sys.stdout = stdout
        _silence(stdout)
        return 141  # 128 + SIGPIPE, as a shell says it
    except OutputError as e:
        sys.stdout = stdout
        _silence(stdout)
        problem = CommandError(
            N_("cannot write to standard output: {problem}"),
            problem=str(e.error.strerror or e.error),
        )
        print(localized(problem), file=sys.stderr)
        return 2
    finally:
        sys.stdout = stdout


def _main(argv: list[str] | None) -> int:
    choose_language()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["app", *(argv or [])])
    try:
        with_default_db(args)
        check_arguments(args)
        code = int(args.func(args))
        sys.stdout.flush()  # a full disk is found here, not at exit
        return code
    except (StoreError, ConfigError, CommandError) as e:
        print(localized(e), file=sys.stderr)
        return 2
    except UnicodeError as e:
        print(localized(unicode_problem(args, e)), file=sys.stderr)
        return 2
    except ValueError as e:
        if not isinstance(e, _file_errors()):
            raise
        print(localized(e), file=sys.stderr)
        return 2
    except BrokenPipeError:
        raise
    except OSError as e:  # anything the system refused that no command foresaw
        problem = str(e.strerror or e)
        if e.filename is not None:
            problem = f"{shown_path(e.filename)}: {problem}"
        print(localized(CommandError(N_("stopped: {problem}"), problem=problem)), file=sys.stderr)
        return 2
