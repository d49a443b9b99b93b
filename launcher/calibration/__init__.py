"""The calibration toolkit: record presses, fit a profile, compare, plan and tune.

``uno-attack calibrate`` (``game/cli/calibrate.py``) is a thin layer over these
modules; ``docs/calibration.md`` walks through measuring a stock toy by hand.

* :mod:`~launcher.calibration.session` -- JSON Lines session files
* :mod:`~launcher.calibration.record` -- pressing a launcher (or a person) into a session
* :mod:`~launcher.calibration.intervals` -- simultaneous intervals, ``plan``
* :mod:`~launcher.calibration.independence` -- runs, autocorrelation, Ljung-Box, load checks
* :mod:`~launcher.calibration.models` -- count and structure models by AIC
* :mod:`~launcher.calibration.fit` -- the fit report and the fitted profile
* :mod:`~launcher.calibration.compare` -- same distribution or not
* :mod:`~launcher.calibration.tune` -- motor timing to match a target
* :mod:`~launcher.calibration.histogram`, :mod:`~launcher.calibration.plot` -- pictures
"""
