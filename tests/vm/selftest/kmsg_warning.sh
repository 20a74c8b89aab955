#!/bin/bash
# Harness self-test: a script that passes but leaves a kernel WARNING in
# dmesg must fail the run (exit 97).
echo "WARNING: rblk harness self-test, not a real warning" > /dev/kmsg
exit 0
