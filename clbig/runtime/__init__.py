"""The ground floor: OpenCL devices and contexts (devices), the settings table (config), kernel
templates and their caches (render, memo), launch geometry (plan), launch replay (replay),
profiling, tuned values (tuned) and the ICD registration of Intel's CPU runtime (icd)."""
