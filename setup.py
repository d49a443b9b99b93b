"""The compiled tensors of ``game.rl`` (everything else is in pyproject.toml).

``game/rl/_tensor.pyx`` is built with Cython where a C compiler is; the build goes on
without it if it fails (``optional``), and ``game.rl.tensor`` then keeps its Python
classes (docs/install.md). A build without Cython (``--no-isolation`` in an environment
that lacks it) skips it the same way, and so does one with ``UNO_ATTACK_NO_COMPILE=1`` (a Pi
that never uses the RL environment saves the compile).
"""

import os

from setuptools import Extension, setup

try:
    from Cython.Build import cythonize
except ImportError:  # only without build isolation: pyproject.toml's build requires list it
    cythonize = None

if cythonize is None or os.environ.get("UNO_ATTACK_NO_COMPILE") == "1":
    extensions = []
else:
    extensions = cythonize(
        [Extension("game.rl._tensor", ["game/rl/_tensor.pyx"])],
        quiet=True,  # the language level is the .pyx's own first line
    )
    for extension in extensions:  # set after: cythonize's copies drop ``optional``
        extension.optional = True

setup(ext_modules=extensions)
