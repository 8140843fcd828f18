#!/usr/bin/env bash
# One GPU-machine run of host/driver.h (scripts/gpu-check/host_report.cc):
# the queries against the real driver, the CUDA toolkit's stub libcuda.so,
# an empty file (what `run --hide-driver` leaves) and with no visible
# device, beside nvidia-smi, /proc/driver/nvidia/version and the reference
# C program. DIR comes from scripts/gpu-check/build.sh (host_report,
# driver_probe, stub-libcuda.so, empty-libcuda.so.1); the last run's output
# is bench/results/host-driver-gpu.txt.
# Usage: scripts/gpu-check/host-driver-check.sh DIR
cd "${1:?usage: scripts/gpu-check/host-driver-check.sh DIR}"
echo "== uname / os"; uname -srm; grep PRETTY /etc/os-release
echo "== /proc/driver/nvidia/version"; cat /proc/driver/nvidia/version
echo "== nvidia-smi"; nvidia-smi --query-gpu=index,name,compute_cap,driver_version,mig.mode.current --format=csv
nvidia-smi | sed -n 3p
echo "== host_report (libcuda.so.1)"; ./host_report; echo "exit $?"
echo "== driver_probe (reference C program)"; ./driver_probe; echo "exit $?"
echo "== host_report with the CUDA 13.0 toolkit's stub libcuda.so"; ./host_report "$PWD/stub-libcuda.so" | grep '^umd'; echo "exit $?"
echo "== host_report with an empty file as libcuda (what run --hide-driver leaves)"; ./host_report "$PWD/empty-libcuda.so.1" | grep '^umd'
echo "== host_report with CUDA_VISIBLE_DEVICES= (driver, no visible GPU)"; CUDA_VISIBLE_DEVICES= ./host_report | grep '^umd'
