#!/bin/bash
# Harness self-test: the kernel panics in the middle of a case. The case
# must fail (125), and the cases after it run in a fresh boot.
echo "panicking the kernel on purpose"
sync
echo c > /proc/sysrq-trigger
sleep 60
