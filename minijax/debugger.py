"""``jax.debug.breakpoint``: an interactive debugger (``(jdb)``) that stops where the program
reaches the call, eagerly or inside a compiled program.

``breakpoint()`` records the calling Python frames when it is traced; the values of their
locals that are being traced travel to the host through a debug callback (``minijax.
callback``), so when the program runs, the debugger sees them as arrays, and sees the other
locals as they were at trace time. Commands, as JAX's ``cli`` debugger: ``p expr``,
``pp expr``, an expression alone, ``u(p)``/``d(own)`` between frames, ``l(ist)``,
``w(here)``/``bt``, ``c(ontinue)`` and ``q(uit)`` (which exits the process).
"""
from __future__ import annotations

import cmd
import dataclasses
import inspect
import os
import pprint
import sys
import traceback
from typing import Any

from minijax import core, lax, tree_util
from minijax.callback import debug_callback, pure_callback

__all__ = ['DebuggerFrame', 'breakpoint']


@dataclasses.dataclass(frozen=True)
class DebuggerFrame:
    """A Python frame as the debugger shows it: its file and line, its locals (and globals),
    and its function's source with the line's ``offset`` into it (None without source)."""
    filename: str
    locals: dict
    globals: dict
    code_context: Any
    source: list
    lineno: int
    offset: int | None

    @classmethod
    def from_frameinfo(cls, info) -> DebuggerFrame:
        try:
            source, start = inspect.getsourcelines(info.frame)
            source = ''.join(source).split('\n')
            offset = info.lineno - max(start, 1)
            if offset >= len(source):  # (source from eval(): no usable listing)
                source, offset = [], None
        except OSError:
            source, offset = [], None
        return cls(info.filename, dict(info.frame.f_locals), {}, info.code_context, source,
                   info.lineno, offset)


_PACKAGE_DIR = os.path.dirname(os.path.abspath(core.__file__)) + os.sep


def _users(frame) -> bool:
    """Whether a frame is the program's own, not minijax's."""
    return not frame.f_code.co_filename.startswith(_PACKAGE_DIR)


def breakpoint(*, backend=None, filter_frames=True, num_frames=None, ordered=False,  # noqa: A001
               token=None, **kwargs):
    """Stop in the debugger when the program gets here, with the calling frames (minijax's
    own left out with ``filter_frames``; the innermost ``num_frames``). ``kwargs`` go to the
    debugger (``stdin=``, ``stdout=``). With ``token`` (any pytree), the breakpoint is
    ordered before what uses the ``token`` it returns."""
    if backend not in (None, 'cli'):
        raise ValueError(f"breakpoint: backend {backend!r}: minijax's debugger is 'cli'")
    if token is not None and ordered:
        raise ValueError('`ordered` and `token` are mutually exclusive arguments.')
    frames = [DebuggerFrame.from_frameinfo(info) for info in inspect.stack()[1:]
              if not filter_frames or _users(info.frame)]
    frames = frames[:num_frames] if num_frames is not None else frames
    leaves, tree = tree_util.tree_flatten([[*f.locals.values()] for f in frames])
    traced = [isinstance(x, core.Tracer) for x in leaves]

    def stop(*values):
        values = iter(values)
        locals_ = tree_util.tree_unflatten(tree, [next(values) if t else x
                                                  for x, t in zip(leaves, traced)])
        CliDebugger([dataclasses.replace(f, locals=dict(zip(f.locals, v)))
                     for f, v in zip(frames, locals_)], **kwargs).run()

    arrays = [x for x, t in zip(leaves, traced) if t]
    if token is None:
        debug_callback(stop, *arrays, ordered=ordered)
        return None

    def stop_and_pass(token, *arrays):
        stop(*arrays)
        return token

    token, arrays = lax.stop_gradient((token, arrays))
    return pure_callback(stop_and_pass, token, token, *arrays)


class CliDebugger(cmd.Cmd):
    """The ``(jdb)`` command loop over a list of frames, innermost first."""
    prompt = '(jdb) '
    intro = 'Entering jdb:'

    def __init__(self, frames, stdin=None, stdout=None, completekey='tab'):
        super().__init__(completekey=completekey, stdin=stdin, stdout=stdout)
        self.use_rawinput = stdin is None
        self.frames, self.frame_index = frames, 0

    def _print(self, text):
        print(text, file=self.stdout)

    def _evaluate(self, expression):
        frame = self.frames[self.frame_index]
        return eval(expression, {}, {**frame.globals, **frame.locals})

    def _show(self, expression, formatter):
        try:
            self._print(formatter(self._evaluate(expression)))
        except Exception:  # (any error in the expression is shown, as pdb does)
            self._print('*** ' + traceback.format_exception_only(*sys.exc_info()[:2])[-1]
                        .strip())

    def default(self, line):
        """An expression: its value."""
        self._show(line, repr)

    def do_p(self, arg):
        """p expression: print its value."""
        self._show(arg, repr)

    def do_pp(self, arg):
        """pp expression: pretty-print its value."""
        self._show(arg, pprint.pformat)

    def do_up(self, arg):
        """u(p): the caller's frame."""
        if self.frame_index == len(self.frames) - 1:
            self._print('At topmost frame.')
        else:
            self.frame_index += 1
        self._context()

    def do_down(self, arg):
        """d(own): the callee's frame."""
        if self.frame_index == 0:
            self._print('At bottommost frame.')
        else:
            self.frame_index -= 1
        self._context()

    def do_list(self, arg):
        """l(ist): the source around the current line."""
        self._context(5)

    def do_where(self, arg):
        """w(here), bt: the frames, innermost last."""
        lines = ['Traceback:']
        for frame in reversed(self.frames):
            lines.append(f'  File "{frame.filename}", line {frame.lineno}')
            lines.append('    <no source>' if frame.offset is None else
                         '    ' + frame.source[frame.offset].strip())
        self._print('\n'.join(lines))

    def do_continue(self, arg):
        """c(ont(inue)): leave the debugger; the program goes on."""
        return True

    def do_quit(self, arg):
        """q(uit), exit: end the program."""
        sys.exit(0)

    do_u, do_d, do_l, do_w, do_bt = do_up, do_down, do_list, do_where, do_where
    do_c = do_cont = do_continue
    do_q = do_exit = do_EOF = do_quit

    def _context(self, around=2):
        frame = self.frames[self.frame_index]
        lines = [f'> {frame.filename}({frame.lineno})']
        for i, line in enumerate(frame.source):
            if frame.offset is not None and frame.offset - 1 - around <= i <= \
                    frame.offset + around:
                lines.append(('->  ' if i == frame.offset else '    ') + line)
        self._print('\n'.join(lines))

    def run(self):
        while True:
            try:
                self.cmdloop()
                return
            except KeyboardInterrupt:
                print('--KeyboardInterrupt--', file=sys.stdout)
