"""Errors of the setup that more than one runtime module raises."""


class SetupError(RuntimeError):
    """The OpenCL setup cannot run clbig: a device whose compiler fails, an unusable cache
    folder. The message names the device or folder and what to change."""
