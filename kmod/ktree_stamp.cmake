# cmake -DKDIR=<kernel build dir> -DBDIR=<rblk.ko's build dir> -P ktree_stamp.cmake
#
# Kbuild records an external module's dependencies by the kernel tree's
# real path, so a kernel rebuilt in another tree under the same release
# (ci/debug-kernel.sh does, when its fragment or patches change) left
# rblk.ko built against the old one, with the old structure layouts. When
# the tree behind KDIR is not the one BDIR was built against, its objects
# go, and the build that follows is a whole one.
file(REAL_PATH "${KDIR}" tree)
set(stamp "${BDIR}/.rblk-kernel-tree")
set(was "")
if(EXISTS "${stamp}")
  file(READ "${stamp}" was)
endif()
if(NOT was STREQUAL tree)
  file(GLOB_RECURSE objs "${BDIR}/*.o" "${BDIR}/*.ko" "${BDIR}/.*.cmd" "${BDIR}/*.mod*")
  if(objs)
    file(REMOVE ${objs})
  endif()
  file(MAKE_DIRECTORY "${BDIR}")
  file(WRITE "${stamp}" "${tree}")
endif()
