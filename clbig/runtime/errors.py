"""Errors of the setup that more than one runtime module raises."""


class SetupError(RuntimeError):
    """The OpenCL setup cannot run clbig, and the message says what to change.

    Raised when a context opens (`clbig.Context`, or the default one at the first
    operation): a device whose compiler fails on a trivial kernel (named with its build log
    and the CL_OPTIONS setting where one is set), a cache folder for compiled kernels that
    cannot be used and no temporary one made, or a corrupt pyopencl cache that moving its
    files aside did not mend (named with the folder to delete). A RuntimeError, so code that
    catches those catches it too.

    Examples
    --------
    >>> import clbig
    >>> issubclass(clbig.SetupError, RuntimeError)
    True
    >>> try:
    ...     ctx = clbig.Context()
    ... except clbig.SetupError as e:
    ...     print("fix the setup:", e)
    ... else:
    ...     print(type(ctx).__name__)
    Context
    """
