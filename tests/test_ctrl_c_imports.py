"""Ctrl-C while arena's main process imports numpy (for the compiled kernel, or pandas for the
reports) stops the run cleanly: the import is finished first, so the reports can still be
written (an import of numpy cut halfway leaves it broken for the rest of the process)."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from arena.tournaments.interrupts import signals_held


def test_a_signal_during_a_held_block_comes_right_after_it() -> None:
    finished = []
    with pytest.raises(KeyboardInterrupt), signals_held():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler would have run here
        finished.append(True)
    assert finished == [True]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


# A finder that sends this process Ctrl-C in the middle of numpy's import: at the first
# submodule after its compiled core, which can't be loaded twice in one process.
CTRL_C_INSIDE_NUMPY = """
    import os, signal, sys

    class CtrlCInsideNumpy:
        core_seen = False

        def find_spec(self, name, path=None, target=None):
            if name.startswith("numpy.") and CtrlCInsideNumpy.core_seen:
                sys.meta_path.remove(self)
                os.kill(os.getpid(), signal.SIGINT)
            if name.endswith("._multiarray_umath"):
                CtrlCInsideNumpy.core_seen = True
            return None

    sys.meta_path.insert(0, CtrlCInsideNumpy())
"""


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="the compiled kernel needs numba")
def test_ctrl_c_while_the_kernel_imports_numpy_leaves_numpy_whole() -> None:
    code = CTRL_C_INSIDE_NUMPY + """
    from arena.engine import PRESETS
    from arena.players import load_player_spec
    from arena.tournaments.batch import compiled_games
    from arena.tournaments.spec import TournamentSpec

    players = (load_player_spec("greedy"), load_player_spec("threshold"))
    spec = TournamentSpec((PRESETS["standard"],), players, compiled=True)
    assert "numpy" not in sys.modules
    try:
        compiled_games(spec)
    except KeyboardInterrupt:
        print("interrupted")
    import pandas  # what the reports need, after the stop
    print(pandas.DataFrame({"games": [1, 2]})["games"].sum())
    """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["interrupted", "3"]
