#!/usr/bin/env bash
# Run CMD (run-in-vm.sh ...) with a qemu whose first N boots of the VM
# panic before the job starts (fake-qemu/): the harness must boot once
# more, and report a VM that never starts as a failure (125).
# Usage: boot-fails.sh N CMD...
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export RBLK_FAKE_QEMU_PANICS=$1
shift
PATH=$here/fake-qemu:$PATH exec "$@"
