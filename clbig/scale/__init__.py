"""Beyond one device's queue: several devices as one context (split), batches larger than a
device's memory (stream), and Dask clusters (dask). Importing it installs its runner into mpz
(mpz.hooks), which every elementwise operation consults when its operands are not all arrays of
one Context."""
from ..mpz import hooks as _hooks
from .dispatch import Runner as _Runner

_hooks.install(_Runner())
