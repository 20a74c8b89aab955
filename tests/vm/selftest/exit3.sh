#!/bin/bash
# Harness self-test: the script's exit code must come back to the host.
echo "exiting with 3 on purpose"
exit 3
