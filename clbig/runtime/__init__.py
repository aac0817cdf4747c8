"""The ground floor: OpenCL devices and contexts (devices), the settings table (config), kernel
templates and their caches (render, memo), launch geometry (plan), launch replay (replay),
profiling, tuned values (tuned) and the ICD registration of Intel's CPU runtime (icd)."""

import warnings as _warnings

# Quiet success (issue 43 item 4): pyopencl warns "Non-empty compiler output encountered" for
# every build whose log is not empty, and Intel's CPU runtime and PoCL log on success, so a user
# saw warnings for kernels that built. Failures still raise with the whole log; the BUILD_LOG
# setting prints every build's log; PYOPENCL_COMPILER_OUTPUT=1 makes pyopencl warn with the
# log's text (another message, not filtered). The filter is process-wide (pyopencl's warning
# does not say whose build it was), and hides only that message, which carries no text.
_warnings.filterwarnings("ignore", message="Non-empty compiler output encountered",
                         category=UserWarning)
