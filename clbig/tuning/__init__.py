"""The `python -m clbig tune` measurement (runtime.tuned reads what it stores)."""
from .measure import tune  # noqa: F401
